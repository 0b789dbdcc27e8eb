// A lite pull consumer: the library pulls in the background, your loop takes messages when it wants
// them. The example sends a few messages, reads them with `for await` (auto-commit keeps the group's
// progress), then seeks back and reads the first one again, as a replay tool would. Run it against
// `npm start` (or set NAMESRV_ADDR):
//
//   node examples/lite-pull.mjs
import { createLitePullConsumer, createProducer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleLitePull';
const DEADLINE_MS = 30_000;
const run = Date.now().toString(36);
const keys = Array.from({ length: 6 }, (_, i) => `event-${run}-${i}`);

// Sending first creates the topic on a fresh broker, so the consumer finds its route at start.
const producer = createProducer({ namesrvAddr, producerGroup: 'example_lite_pull_producer' });
await producer.start();
try {
  for (const key of keys) await producer.send({ topic, body: `payload of ${key}`, keys: key });
  console.log(`sent ${keys.length} messages to ${topic}`);
} finally {
  await producer.shutdown();
}

const consumer = createLitePullConsumer({
  namesrvAddr,
  consumerGroup: 'example_lite_pull_group',
  // Only for a group the broker has no offsets of: start at the oldest stored message.
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, '*');
await consumer.start();

// The loop ends by itself when the consumer shuts down; the deadline does that if messages never come.
const deadline = setTimeout(() => {
  console.log(`gave up after ${DEADLINE_MS / 1000} s`);
  process.exitCode = 1;
  void consumer.shutdown();
}, DEADLINE_MS);

const pending = new Set(keys);
let first;
for await (const msg of consumer) {
  if (!pending.delete(msg.keys)) {
    console.log(`got ${msg.keys} (left by an earlier run)`);
    continue;
  }
  first ??= msg;
  console.log(`got ${msg.keys} from queue ${msg.queueId} at offset ${msg.queueOffset}`);
  // `break` ends the loop; this message and those after it are not committed, so nothing is lost.
  if (pending.size === 0) break;
}

if (first !== undefined && pending.size === 0) {
  // Replay: the queue's next pull starts at the first message's offset again.
  const mq = consumer
    .assignment()
    .find((q) => q.queueId === first.queueId && q.brokerName === first.brokerName);
  await consumer.seek(mq, first.queueOffset);
  let again;
  while (again === undefined && process.exitCode === undefined) {
    const batch = await consumer.poll({ timeoutMs: 1000 });
    again = batch.find((m) => m.keys === first.keys);
  }
  if (again !== undefined) console.log(`after seek, got ${again.keys} again at offset ${again.queueOffset}`);
}
clearTimeout(deadline);
// Shutdown commits what the loop consumed and persists it to the broker.
await consumer.shutdown();
if (pending.size === 0) console.log(`consumed all ${keys.length} messages`);
else process.exitCode = 1;
