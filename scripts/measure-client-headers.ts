/**
 * The largest request headers the official 4.9.x Java clients send (docs/broker-limits.md, the
 * figure serverHeaderMaxSize and serverHeaderMaxExtFields are chosen against): our name server and
 * broker in this process, every request they get measured (its header re-encoded in the request's
 * own serialization, byte for byte what fastjson and RocketMQSerializable write, and its extFields
 * counted) while the official producer (sync, async, oneway, batch, with tags and keys), pull
 * consumer, push consumer (SQL92 filter) and mqadmin run through the interop helpers. Needs Java and
 * the interop build (`node scripts/interop-prepare.mjs`).
 *
 *   node build/scripts/measure-client-headers.js
 */

import { createProducer } from '../src/client/index.js';
import { Message } from '../src/common/message/message.js';
import { startEmbedded } from '../src/embedded/embedded.js';
import type { RemotingCommand } from '../src/remoting/protocol/command.js';
import { encodeHeader } from '../src/remoting/protocol/frame.js';
import { RequestCode } from '../src/remoting/protocol/request-code.js';
import type { Connection } from '../src/remoting/transport/connection.js';
import { RequestDispatcher } from '../src/remoting/transport/dispatcher.js';
import { officialProduce, officialPullAll } from '../test/interop/client-probe.js';
import { startMqadminSession } from '../test/interop/mqadmin-session.js';
import { startPushConsumerProbe } from '../test/interop/push-consumer-probe.js';

interface Largest {
  headerBytes: number;
  extFields: number;
  count: number;
}
const byCode = new Map<number, Largest>();

// The measuring hook: every request a server of this process dispatches.
const handle = RequestDispatcher.prototype.handleRequest;
RequestDispatcher.prototype.handleRequest = function measured(
  connection: Connection,
  request: RemotingCommand,
) {
  const entry = byCode.get(request.code) ?? { headerBytes: 0, extFields: 0, count: 0 };
  entry.headerBytes = Math.max(entry.headerBytes, encodeHeader(request).length);
  entry.extFields = Math.max(entry.extFields, Object.keys(request.extFields ?? {}).length);
  entry.count++;
  byCode.set(request.code, entry);
  return handle.call(this, connection, request);
};

const embedded = await startEmbedded({ autoCreateTopicEnable: true, enablePropertyFilter: true });
const ns = embedded.namesrvAddr;
try {
  const topic = 'HeaderSizes';
  await officialProduce(ns, topic, 20, { mode: 'sync', tags: ['TagA', 'TagB'] });
  await officialProduce(ns, topic, 20, { mode: 'async' });
  await officialProduce(ns, topic, 20, { mode: 'oneway' });
  await officialProduce(ns, topic, 10, { mode: 'batch' });
  await officialPullAll(ns, topic, 'cg_header_pull', { commit: true });
  const push = await startPushConsumerProbe({
    namesrvAddr: ns,
    topic,
    group: 'cg_header_push',
    expression: "a IS NULL OR (a BETWEEN 0 AND 100 AND TAGS IN ('TagA', 'TagB'))",
    sql: true,
    queues: 4,
    timeoutMs: 120_000,
  });
  const producer = createProducer({ namesrvAddr: ns, producerGroup: 'pg_header_sizes' });
  await producer.start();
  const sent = await producer.send(new Message(topic, Buffer.from('x'), { tags: 'TagA' }));
  await producer.shutdown();
  await push.waitForMsgIds([sent.msgId], 60_000).catch(() => undefined);
  await push.close();
  const admin = await startMqadminSession();
  const brokerAddr = embedded.brokerAddr;
  for (const args of [
    ['clusterList', '-n', ns],
    ['topicList', '-n', ns],
    ['topicRoute', '-n', ns, '-t', topic],
    ['topicStatus', '-n', ns, '-t', topic],
    ['updateTopic', '-n', ns, '-b', brokerAddr, '-t', 'HeaderSizesAdmin', '-r', '8', '-w', '8'],
    ['updateSubGroup', '-n', ns, '-b', brokerAddr, '-g', 'cg_header_admin'],
    ['consumerProgress', '-n', ns, '-g', 'cg_header_pull'],
    ['brokerStatus', '-n', ns, '-b', brokerAddr],
    ['getBrokerConfig', '-n', ns, '-b', brokerAddr],
    ['queryMsgByKey', '-n', ns, '-t', topic, '-k', 'key-1'],
    ['statsAll', '-n', ns],
  ]) {
    await admin.run(args, 60_000).catch((e: unknown) => console.error(`${args[0]}: ${String(e)}`));
  }
  await admin.close();
} finally {
  await embedded.close();
}

const names = new Map(Object.entries(RequestCode).map(([name, code]) => [code as number, name]));
const rows = [...byCode.entries()].sort((a, b) => b[1].headerBytes - a[1].headerBytes);
for (const [code, e] of rows) {
  console.log(
    `${String(names.get(code) ?? code).padEnd(40)} ${String(e.headerBytes).padStart(6)} bytes ${String(e.extFields).padStart(3)} extFields  (${e.count} requests)`,
  );
}
const top = rows[0]?.[1];
const most = Math.max(...rows.map(([, e]) => e.extFields));
console.log(`largest header ${top?.headerBytes ?? 0} bytes; most extFields ${most}`);
