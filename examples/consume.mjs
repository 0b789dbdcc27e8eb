// A push consumer: the library pulls (long polling), runs the listener on each message and keeps the
// group's progress on the broker. The example sends a few messages itself, consumes them (one fails
// once and comes back through the group's retry topic), prints what it got and leaves.
// Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/consume.mjs
//
// The group's offsets stay on the broker, so a second run starts where this one stopped.
import { subscribe } from 'node:diagnostics_channel';
import { createProducer, createPushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleConsume';
const DEADLINE_MS = 30_000;
const run = Date.now().toString(36);
const keys = Array.from({ length: 5 }, (_, i) => `item-${run}-${i}`);

// Sending first creates the topic on a fresh broker, so the consumer finds its route at start.
const producer = createProducer({ namesrvAddr, producerGroup: 'example_consume_producer' });
await producer.start();
try {
  for (const key of keys) await producer.send({ topic, body: `payload of ${key}`, tags: 'Item', keys: key });
  console.log(`sent ${keys.length} messages to ${topic}`);
} finally {
  await producer.shutdown();
}

// Which queues this member holds, as rebalancing hands them out.
subscribe('rocketmq-ts:consumer:rebalance', (e) => {
  if (e.topic === topic)
    console.log(`holding queues ${e.mqDivided.map((mq) => mq.queueId).join(',')} of ${topic}`);
});

const pending = new Set(keys);
let allDone;
const done = new Promise((resolve) => {
  allDone = resolve;
});

const consumer = createPushConsumer({
  namesrvAddr,
  consumerGroup: 'example_consume_group',
  // Only for a group the broker has no offsets of: start at the oldest stored message.
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, 'Item');
consumer.registerMessageListener({
  type: 'concurrently',
  async consumeMessage(msgs, ctx) {
    for (const msg of msgs) {
      if (!pending.has(msg.keys)) {
        console.log(`got ${msg.keys} (left by an earlier run)`);
        continue;
      }
      // The first message fails once: it goes back to the broker and returns after the delay level
      // (level 1 is 1 s; 0 lets the broker choose by the retry count: 10 s, 30 s, 1 min ...).
      if (msg.keys === keys[0] && msg.reconsumeTimes === 0) {
        console.log(`got ${msg.keys} from queue ${msg.queueId}: failing it once`);
        ctx.delayLevelWhenNextConsume = 1;
        return 'RECONSUME_LATER';
      }
      pending.delete(msg.keys);
      console.log(
        `got ${msg.keys} from queue ${msg.queueId} at offset ${msg.queueOffset}` +
          ` (msgId ${msg.msgId}, attempt ${msg.reconsumeTimes + 1}): ${msg.body.toString()}`,
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
// Shutdown persists the group's offsets to the broker and leaves the group.
await consumer.shutdown();
if (finished) {
  console.log(`consumed all ${keys.length} messages`);
} else {
  console.log(`gave up after ${DEADLINE_MS / 1000} s; not consumed: ${[...pending].join(', ')}`);
  process.exitCode = 1;
}
