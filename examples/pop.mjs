// POP consumption (RocketMQ 5.x): the broker, not the client, decides who holds which message.
// The example sends a few messages, switches its group to POP mode on every broker (what
// `rmq admin setConsumeMode -m POP` does), and consumes with a push consumer that asks the broker
// for its queues (`clientRebalance: false`): each message is popped, held invisible to the other
// members, and acked once the listener succeeds. One message fails once: the broker brings it back
// through the group's POP retry topic (`%RETRY%<group>_<topic>`) after its invisible time.
// Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/pop.mjs
//
// More: docs/pop.md.
import { createAdmin, createProducer, createPushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExamplePop';
const group = 'example_pop_group';
const DEADLINE_MS = 45_000;
const run = Date.now().toString(36);
const keys = Array.from({ length: 4 }, (_, i) => `pop-${run}-${i}`);

// Sending first creates the topic on a fresh broker.
const producer = createProducer({ namesrvAddr, producerGroup: 'example_pop_producer' });
await producer.start();
try {
  for (const key of keys) await producer.send({ topic, body: `payload of ${key}`, keys: key });
  console.log(`sent ${keys.length} messages to ${topic}`);
} finally {
  await producer.shutdown();
}

// The group reads the topic in POP mode on every broker that has it (SET_MESSAGE_REQUEST_MODE).
// popShareQueueNum 0: every member pops every queue.
const admin = createAdmin({ namesrvAddr });
await admin.start();
try {
  const route = await admin.examineTopicRouteInfo(topic);
  for (const broker of route.brokerDatas) {
    const addr = broker.brokerAddrs.get(0); // the master
    if (addr === undefined) continue;
    await admin.setMessageRequestMode(addr, topic, group, 'POP', 0);
    console.log(`${group} pops ${topic} on ${broker.brokerName}`);
  }
} finally {
  await admin.shutdown();
}

const pending = new Set(keys);
let allDone;
const done = new Promise((resolve) => {
  allDone = resolve;
});

const consumer = createPushConsumer({
  namesrvAddr,
  consumerGroup: group,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  // The broker assigns the queues (QUERY_ASSIGNMENT) and says to pop them.
  clientRebalance: false,
  // How long a popped message stays invisible to the other members unless acked, ms.
  popInvisibleTime: 20_000,
});
consumer.subscribe(topic, '*');
consumer.registerMessageListener({
  type: 'concurrently',
  async consumeMessage(msgs) {
    for (const msg of msgs) {
      if (!pending.has(msg.keys)) {
        console.log(`got ${msg.keys} (left by an earlier run)`);
        continue;
      }
      // RECONSUME_LATER in POP mode: the consumer changes the message's invisible time to the first
      // step of the POP delay table (10 s); then the broker's revive puts it into the retry topic.
      if (msg.keys === keys[0] && msg.reconsumeTimes === 0) {
        console.log(`got ${msg.keys} from queue ${msg.queueId}: failing it once`);
        return 'RECONSUME_LATER';
      }
      pending.delete(msg.keys);
      console.log(
        `got ${msg.keys} from ${msg.topic} queue ${msg.queueId} (attempt ${msg.reconsumeTimes + 1}): ${msg.body.toString()}`,
      );
    }
    if (pending.size === 0) allDone();
    return 'CONSUME_SUCCESS';
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
await consumer.shutdown();
if (finished) {
  console.log(`consumed all ${keys.length} messages, one of them on its second attempt`);
} else {
  console.log(`gave up after ${DEADLINE_MS / 1000} s; not consumed: ${[...pending].join(', ')}`);
  process.exitCode = 1;
}
