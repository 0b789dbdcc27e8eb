// Broadcasting: every member of the group gets every message (clustering, the default, shares the
// queues among the members instead). Two members run here, in one process; each keeps its own
// progress in a local file, not on the broker. A failed message is not retried: it is dropped with
// a warn line. Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/broadcast.mjs
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProducer, createPushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleBroadcast';
const group = 'example_broadcast_group';
const DEADLINE_MS = 30_000;
// Offsets live in <localOffsetStoreDir>/<clientId>/<group>/offsets.json, by default under
// ~/.rocketmq_offsets, so a restarted member resumes where it stopped. The example uses a directory of
// its own and removes it at the end: an offset file kept from another broker (say, after
// `rm -rf data`) would make a member start past this broker's messages.
const localOffsetStoreDir = mkdtempSync(join(tmpdir(), 'rocketmq-ts-broadcast-'));
const run = Date.now().toString(36);
const keys = Array.from({ length: 4 }, (_, i) => `notice-${run}-${i}`);

const producer = createProducer({ namesrvAddr, producerGroup: 'example_broadcast_producer' });
await producer.start();
try {
  for (const key of keys) await producer.send({ topic, body: `cache invalidation ${key}`, keys: key });
  console.log(`sent ${keys.length} messages to ${topic}`);
} finally {
  await producer.shutdown();
}

const members = ['member-a', 'member-b'].map((instanceName) => {
  const pending = new Set(keys);
  let allDone;
  const done = new Promise((resolve) => {
    allDone = resolve;
  });
  const consumer = createPushConsumer({
    namesrvAddr,
    consumerGroup: group,
    messageModel: 'BROADCASTING',
    // Two members of one group in one process need client ids of their own; a broadcasting
    // member's id (ip@instanceName) also names its offset file.
    instanceName,
    localOffsetStoreDir,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      for (const msg of msgs) {
        if (!pending.delete(msg.keys)) continue; // an earlier run's message
        console.log(`${instanceName} got ${msg.keys} from queue ${msg.queueId}`);
      }
      if (pending.size === 0) allDone();
      return 'CONSUME_SUCCESS';
    },
  });
  return { instanceName, consumer, pending, done };
});

for (const m of members) await m.consumer.start();
let timer;
await Promise.race([
  Promise.all(members.map((m) => m.done)),
  new Promise((resolve) => {
    timer = setTimeout(resolve, DEADLINE_MS);
  }),
]);
clearTimeout(timer);
// Shutdown writes each member's offsets to its file.
for (const m of members) await m.consumer.shutdown();

for (const m of members) {
  const got = keys.length - m.pending.size;
  const file = join(localOffsetStoreDir, m.consumer.clientId, group, 'offsets.json');
  const kept = existsSync(file) ? `its offsets were in ${file}` : 'no offset file';
  console.log(`${m.instanceName}: ${got} of ${keys.length} messages; ${kept}`);
  if (m.pending.size > 0) process.exitCode = 1;
}
rmSync(localOffsetStoreDir, { recursive: true, force: true });
