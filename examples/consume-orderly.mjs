// Orderly consumption: the producer sends every event of one order to the same queue (a selector on
// the order id), and an orderly listener gets each queue's messages one batch at a time, in queue
// order, while this member holds the queue's lock on the broker. A listener that is not ready asks
// for the same message again (SUSPEND_CURRENT_QUEUE_A_MOMENT) and nothing behind it moves meanwhile.
// Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/consume-orderly.mjs
import { createProducer, createPushConsumer, selectMessageQueueByHash } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleOrderEvents';
const DEADLINE_MS = 30_000;
const run = Date.now().toString(36);
const orders = ['A', 'B', 'C'].map((name) => `order-${run}-${name}`);
const steps = ['Created', 'Paid', 'Shipped', 'Delivered'];

const producer = createProducer({ namesrvAddr, producerGroup: 'example_orderly_producer' });
await producer.start();
try {
  // Steps interleaved across orders, as they would arrive from many requests.
  for (const step of steps) {
    for (const order of orders) {
      await producer.send(
        { topic, body: `${order} ${step}`, tags: step, keys: order },
        { selector: selectMessageQueueByHash, arg: order },
      );
    }
  }
  console.log(`sent ${steps.length} events for each of ${orders.length} orders`);
} finally {
  await producer.shutdown();
}

const seen = new Map(orders.map((o) => [o, []]));
let expected = orders.length * steps.length;
let allDone;
const done = new Promise((resolve) => {
  allDone = resolve;
});
let suspendedOnce = false;

const consumer = createPushConsumer({
  namesrvAddr,
  consumerGroup: 'example_orderly_group',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, '*');
consumer.registerMessageListener({
  type: 'orderly',
  async consumeMessage(msgs, ctx) {
    for (const msg of msgs) {
      const events = seen.get(msg.keys);
      if (events === undefined) continue; // an earlier run's event
      // Pretend the first "Paid" event finds the payment service busy: the queue pauses and the
      // same message comes back first, so "Shipped" cannot overtake it (the client logs a warn line).
      if (msg.tags === 'Paid' && !suspendedOnce) {
        suspendedOnce = true;
        console.log(
          `queue ${msg.queueId}: ${msg.body.toString()} not ready, suspending the queue for 200 ms`,
        );
        ctx.suspendCurrentQueueTimeMillis = 200;
        return 'SUSPEND_CURRENT_QUEUE_A_MOMENT';
      }
      events.push(msg.tags);
      expected--;
      console.log(`queue ${msg.queueId} offset ${msg.queueOffset}: ${msg.body.toString()}`);
    }
    if (expected === 0) allDone();
    return 'SUCCESS';
  },
});
await consumer.start();

let timer;
const finished = await Promise.race([
  done.then(() => true),
  new Promise((resolve) => {
    timer = setTimeout(resolve, DEADLINE_MS, false);
  }),
]);
clearTimeout(timer);
// Shutdown persists offsets and unlocks the queues on the broker, so another member takes them at once.
await consumer.shutdown();

let inOrder = finished;
for (const [order, events] of seen) {
  const ok = events.join() === steps.join();
  inOrder &&= ok;
  console.log(`${order}: ${events.join(' -> ')}${ok ? '' : ' (incomplete or out of order)'}`);
}
if (!inOrder) process.exitCode = 1;
