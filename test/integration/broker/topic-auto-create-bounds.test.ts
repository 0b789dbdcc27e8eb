/**
 * Topics created by sends (issue 26): past autoCreateTopicMaxCount a send to a new topic gets
 * TOPIC_NOT_EXIST naming the limit, and new topics reach the name server in registrations that carry
 * only them (a burst in few registrations), with their routes there as promptly as before; the next
 * periodic registration sends the whole table again. In-process name server and broker on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, test } from 'node:test';
import { sendToTopic } from '../../../scripts/attack/raw-requests.js';
import { type BrokerConfigOverrides, createBroker } from '../../../src/broker/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { decodeRegisterBrokerBody } from '../../../src/common/protocol/register-broker-body.js';
import type { RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { startLoopbackNamesrv } from './slave-support.js';

const LIMIT = { timeout: 30_000 };
const quiet = createLogger('test', { level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'rmq-auto-create-'));
let count = 0;
const cleanups: Array<() => Promise<void>> = [];
after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(config: BrokerConfigOverrides) {
  count++;
  const ns = await startLoopbackNamesrv(join(dir, `ns-${count}`));
  cleanups.push(() => ns.namesrv.shutdown());
  const registrations: RemotingCommand[] = [];
  ns.namesrv.remotingServer.registerRPCHook({
    doBeforeRequest: (_addr, request) => {
      if (request.code === RequestCode.REGISTER_BROKER) registrations.push(request as RemotingCommand);
    },
    doAfterResponse: () => {},
  });
  const broker = createBroker({
    config: {
      storePathRootDir: join(dir, `store-${count}`),
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      namesrvAddr: ns.addr,
      ...config,
    },
    logger: quiet,
  });
  cleanups.push(() => broker.shutdown());
  await broker.start();
  const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  cleanups.push(() => client.close());
  const send = (topic: string) => client.invoke(broker.brokerAddr, sendToTopic(topic), { timeoutMs: 5000 });
  return { namesrv: ns.namesrv, broker, send, registrations, client, namesrvAddr: ns.addr };
}

test('past autoCreateTopicMaxCount a send to a new topic is refused naming the limit', LIMIT, async () => {
  const probe = await start({});
  const system = probe.broker.topicConfigManager.topicConfigTable.size;
  for (const c of cleanups.splice(0).reverse()) await c();
  const { broker, send } = await start({ autoCreateTopicMaxCount: system + 2 });
  assert.equal((await send('AutoA')).code, ResponseCode.SUCCESS);
  assert.equal((await send('AutoB')).code, ResponseCode.SUCCESS);
  const refused = await send('AutoC');
  assert.equal(refused.code, ResponseCode.TOPIC_NOT_EXIST);
  assert.match(refused.remark ?? '', new RegExp(`autoCreateTopicMaxCount is ${system + 2}`));
  assert.equal(broker.topicConfigManager.selectTopicConfig('AutoC'), undefined);
  // Existing topics still take sends.
  assert.equal((await send('AutoA')).code, ResponseCode.SUCCESS);
});

test('a burst of new topics registers in batches carrying only them; routes follow', LIMIT, async () => {
  const { namesrv, send, registrations, broker } = await start({});
  const before = registrations.length;
  const names = Array.from({ length: 200 }, (_, i) => `Burst${i}`);
  const replies = await Promise.all(names.map((n) => send(n)));
  assert.ok(replies.every((r) => r.code === ResponseCode.SUCCESS));
  // Each registration after the burst carries new topics only, never the whole table.
  const table = broker.topicConfigManager.topicConfigTable.size;
  const until = Date.now() + 10_000;
  while (names.some((n) => namesrv.routeInfoManager.pickupTopicRouteData(n) === undefined)) {
    assert.ok(Date.now() < until, 'every new topic has its route');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const increments = registrations.slice(before);
  assert.ok(
    increments.length < names.length / 4,
    `${increments.length} registrations for ${names.length} topics`,
  );
  for (const r of increments) {
    const body = decodeRegisterBrokerBody(r.body ?? Buffer.alloc(0), r.extFields?.compressed === 'true', {
      timestamp: 0n,
    });
    const topics = [...body.topicConfigSerializeWrapper.topicConfigTable.keys()];
    assert.ok(topics.length < table && topics.every((t) => t.startsWith('Burst')), topics.join(','));
  }
  // The name server knows it lacks the whole table: the next periodic registration sends it.
  const version = namesrv.routeInfoManager.queryBrokerTopicConfig(broker.brokerAddr);
  assert.notDeepEqual(version, broker.topicConfigManager.dataVersion);
});
