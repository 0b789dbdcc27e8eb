// Sends messages in the ways a producer can: one at a time, many in flight, as a batch, in order by
// a key, and delayed. Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/produce.mjs
import { createProducer, Message, selectMessageQueueByHash } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleOrders';

const producer = createProducer({ namesrvAddr, producerGroup: 'example_producer' });
await producer.start();
try {
  // One message, awaited: the broker has stored it when the promise resolves.
  const one = await producer.send(
    new Message(topic, Buffer.from('order 1 created'), { tags: 'Created', keys: 'order-1' }),
  );
  console.log(`sent ${one.msgId} to queue ${one.messageQueue.queueId} at offset ${one.queueOffset}`);

  // Many in flight at once: start the sends, then wait for all of them.
  const many = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      producer.send({ topic, body: `bulk ${i}`, tags: 'Bulk', properties: { index: String(i) } }),
    ),
  );
  console.log(`sent ${many.length} messages concurrently`);

  // A batch: one request, one topic, stored together.
  const batch = await producer.send([
    { topic, body: 'batch a', tags: 'Batch' },
    { topic, body: 'batch b', tags: 'Batch' },
    { topic, body: 'batch c', tags: 'Batch' },
  ]);
  console.log(`batch stored as ${batch.msgId.split(',').length} messages`);

  // Ordered: every event of one order goes to the same queue, so consumers see them in order.
  for (const step of ['Created', 'Paid', 'Shipped']) {
    const r = await producer.send(
      { topic, body: `order 42 ${step}`, tags: step, keys: 'order-42' },
      { selector: selectMessageQueueByHash, arg: 'order-42' },
    );
    console.log(`order-42 ${step} -> queue ${r.messageQueue.queueId}`);
  }

  // Delayed: level 1 is 1 s with the broker's default levels (1s 5s 10s 30s 1m ...).
  const delayed = await producer.send({ topic, body: 'reminder', tags: 'Reminder', delayTimeLevel: 1 });
  console.log(`delayed message ${delayed.msgId} will be delivered in about 1 s`);
} finally {
  await producer.shutdown();
}
