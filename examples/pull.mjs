// A pull consumer: your code picks the queue and the offset, pulls, and records the group's progress
// itself. The example sends a few messages, then walks every queue of the topic from the group's
// stored offset (or the queue's start, for a new group) to its end. Run it against `npm start` (or set
// NAMESRV_ADDR):
//
//   node examples/pull.mjs
//
// The group's offsets are persisted to the broker at shutdown, so a second run reads only new messages.
import { createProducer, createPullConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExamplePull';
const run = Date.now().toString(36);
const keys = Array.from({ length: 8 }, (_, i) => `record-${run}-${i}`);

const producer = createProducer({ namesrvAddr, producerGroup: 'example_pull_producer' });
await producer.start();
try {
  for (const key of keys)
    await producer.send({ topic, body: `payload of ${key}`, tags: 'Record', keys: key });
  console.log(`sent ${keys.length} messages to ${topic}`);
} finally {
  await producer.shutdown();
}

const consumer = createPullConsumer({ namesrvAddr, consumerGroup: 'example_pull_group' });
await consumer.start();
const pending = new Set(keys);
try {
  for (const mq of await consumer.fetchSubscribeMessageQueues(topic)) {
    // -1: the group has no offset for this queue yet.
    let offset = await consumer.fetchConsumeOffset(mq, true);
    if (offset < 0n) offset = await consumer.minOffset(mq);
    for (;;) {
      const result = await consumer.pull(mq, 'Record', offset, 32);
      for (const msg of result.msgFoundList) {
        pending.delete(msg.keys);
        console.log(`queue ${mq.queueId} offset ${msg.queueOffset}: ${msg.keys}`);
      }
      if (result.pullStatus === 'OFFSET_ILLEGAL')
        console.log(`queue ${mq.queueId}: ${offset} is out of range`);
      const moved = result.nextBeginOffset !== offset;
      offset = result.nextBeginOffset;
      // Recorded in memory; persisted every 5 s and at shutdown.
      consumer.updateConsumeOffset(mq, offset);
      // FOUND: there may be more; NO_NEW_MSG: the end of the queue; NO_MATCHED_MSG: only other tags.
      if (!moved || (result.pullStatus !== 'FOUND' && result.pullStatus !== 'NO_MATCHED_MSG')) break;
    }
  }
} finally {
  await consumer.shutdown();
}
if (pending.size === 0) {
  console.log(`read all ${keys.length} messages`);
} else {
  console.log(`not found: ${[...pending].join(', ')}`);
  process.exitCode = 1;
}
