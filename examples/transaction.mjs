// A transactional producer: the message is stored as a half message (consumers cannot see it), the
// local transaction runs, and its outcome commits or rolls the message back. Three orders show the
// three outcomes:
//
//   order 1: saved locally               -> COMMIT_MESSAGE   (consumers get it)
//   order 2: refused locally             -> ROLLBACK_MESSAGE (consumers never see it)
//   order 3: saved, but not confirmed    -> UNKNOW           (the broker asks checkListener later)
//
// Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/transaction.mjs                    # sends the three, explains what happens to order 3
//   WAIT_FOR_CHECK=1 node examples/transaction.mjs   # also stays until the broker's check settles order 3
//
// The broker asks about an undecided half message once it is older than `transactionTimeOut` (6 s),
// on its check pass every `transactionCheckInterval` (60 s): with the default broker settings the
// check comes within about 70 s. Put `transactionCheckInterval=5000` in a broker.conf
// (`npm start -- -c broker.conf`) to see it within seconds.
import { createTransactionProducer, LocalTransactionState } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const waitForCheck = process.env.WAIT_FOR_CHECK === '1';
const CHECK_DEADLINE_MS = 150_000;
const topic = 'ExampleTxOrders';
// Keys unique to this run, so checks about orders of earlier runs are told apart.
const run = Date.now().toString(36);

// The "local database" the transactions write to, and the check reads.
const savedOrders = new Set();

let settleOrder3;
const order3Checked = new Promise((resolve) => {
  settleOrder3 = resolve;
});

const producer = createTransactionProducer({
  namesrvAddr,
  producerGroup: 'example_tx_producer',
  // The broker asks a producer of the group about a half message still undecided: it may be from
  // this run, or one an earlier run left behind (that process is gone, so any member answers).
  checkListener: async (msg) => {
    const state = savedOrders.has(msg.keys)
      ? LocalTransactionState.COMMIT_MESSAGE
      : LocalTransactionState.ROLLBACK_MESSAGE;
    console.log(`check: the broker asks about ${msg.keys} (${msg.transactionId}) -> ${state}`);
    if (msg.keys === `order-${run}-3`) settleOrder3(state);
    return state;
  },
});
await producer.start();
let exitCode = 0;
try {
  const orders = [
    { id: `order-${run}-1`, outcome: 'save' },
    { id: `order-${run}-2`, outcome: 'refuse' },
    { id: `order-${run}-3`, outcome: 'unconfirmed' },
  ];
  for (const order of orders) {
    const r = await producer.sendMessageInTransaction(
      { topic, body: `${order.id} created`, tags: 'Created', keys: order.id },
      // The local transaction runs only once the broker has stored the half message.
      async (msg, o) => {
        if (o.outcome === 'refuse') return LocalTransactionState.ROLLBACK_MESSAGE;
        savedOrders.add(msg.keys);
        // Order 3 stands for a commit whose outcome we could not confirm (a timeout talking to the
        // database): answering UNKNOW leaves the decision to the broker's check.
        return o.outcome === 'save' ? LocalTransactionState.COMMIT_MESSAGE : LocalTransactionState.UNKNOW;
      },
      order,
    );
    console.log(`${order.id}: half message ${r.sendStatus} (${r.msgId}) -> ${r.localTransactionState}`);
  }

  if (waitForCheck) {
    console.log(`waiting up to ${CHECK_DEADLINE_MS / 1000} s for the broker to check order-${run}-3 ...`);
    let timer;
    const state = await Promise.race([
      order3Checked,
      new Promise((resolve) => {
        timer = setTimeout(resolve, CHECK_DEADLINE_MS, undefined);
      }),
    ]);
    clearTimeout(timer);
    if (state === undefined) {
      console.log('no check came: is the broker a master with its transaction check running?');
      exitCode = 1;
    } else {
      console.log(`order-${run}-3 settled by the check: ${state}`);
    }
  } else {
    console.log(
      `order-${run}-3 stays a half message: the broker asks this group about it after its ` +
        'transactionTimeOut, on its next check pass. Run with WAIT_FOR_CHECK=1 to stay for the answer; ' +
        "once this process is gone, a later run answers instead (it has no record of the order, so it's rolled back).",
    );
  }
} finally {
  await producer.shutdown();
}
process.exitCode = exitCode;
