/**
 * The name server as a process component: real TCP on 127.0.0.1 (port 0), a real temp dir for
 * kvConfig.json. Start and shutdown, KV config persistence and reload, the order-topic config in
 * registration replies and routes, and broker removal by channel close and by expiry (clock driven).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { decodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { decodeTopicRouteData } from '../../../src/common/protocol/route.js';
import {
  type CreateNamesrvOptions,
  createNamesrv,
  type NamesrvController,
} from '../../../src/namesrv/namesrv-controller.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { ManualClock, quiet, registerRequest, topics } from '../../unit/namesrv/helpers.js';

const LIMIT = { timeout: 10_000 };
const dir = mkdtempSync(join(tmpdir(), 'rmq-namesrv-it-'));
let dirCount = 0;
const running: NamesrvController[] = [];
const clients: RemotingClient[] = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(running.splice(0).map((n) => n.shutdown()));
});

function kvPath(): string {
  dirCount++;
  return join(dir, `ns-${dirCount}`, 'kvConfig.json');
}

async function start(options: CreateNamesrvOptions = {}) {
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: kvPath(),
    logger: quiet,
    ...options,
    settings: { listenHost: '127.0.0.1', ...options.settings },
  });
  running.push(namesrv);
  const bound = await namesrv.start();
  const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  clients.push(client);
  const addr = `127.0.0.1:${bound.port}`;
  const call = (cmd: RemotingCommand) => client.invoke(addr, cmd, { timeoutMs: 3000 });
  return { namesrv, client, addr, call };
}

const kv = (code: number, extFields: Record<string, string>) => createRequest(code, { extFields });
const route = (topic: string) =>
  createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
    extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
  });

describe('name server over TCP', () => {
  test('starts on a free port, answers, and stops listening on shutdown', LIMIT, async () => {
    const { namesrv, call, addr } = await start();
    assert.ok(namesrv.address);
    assert.equal((await call(registerRequest({ topics: topics('TBW102') }))).code, ResponseCode.SUCCESS);
    const reply = await call(route('TBW102'));
    assert.equal(decodeTopicRouteData(reply.body).brokerDatas[0]?.brokerAddrs.get(0), '10.0.0.1:10911');
    await namesrv.shutdown();
    await namesrv.shutdown();
    assert.equal(namesrv.address, undefined);
    const late = new RemotingClient({ connectTimeoutMs: 1000 }, { logger: quiet });
    clients.push(late);
    await assert.rejects(late.invoke(addr, kv(RequestCode.GET_BROKER_CLUSTER_INFO, {})), {
      name: 'RemotingConnectError',
    });
    await assert.rejects(namesrv.start(), /cannot start: it is stopped/);
  });

  test('a taken port makes start() reject', LIMIT, async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;
    try {
      const namesrv = createNamesrv({
        listenPort: port,
        kvConfigPath: kvPath(),
        logger: quiet,
        settings: { listenHost: '127.0.0.1' },
      });
      running.push(namesrv);
      await assert.rejects(namesrv.start(), { code: 'EADDRINUSE' });
    } finally {
      blocker.close();
    }
  });

  test('a broker whose connection closes is removed at once', LIMIT, async () => {
    const { namesrv, call, client, addr } = await start();
    await call(registerRequest({ topics: topics('T') }));
    const removed = once(namesrv.routeInfoManager, 'brokerRemoved');
    await client.closeConnection(addr);
    assert.deepEqual(await removed, ['10.0.0.1:10911', 'channelDestroyed']);
    assert.equal((await call(route('T'))).code, ResponseCode.TOPIC_NOT_EXIST);
  });

  test(
    'expiry: the scan runs after 5 s then every 10 s and drops brokers silent for 120 s',
    LIMIT,
    async () => {
      const clock = new ManualClock();
      const { namesrv, call, client, addr } = await start({ clock });
      await call(registerRequest({ topics: topics('T') }));
      const connection = client.connectionTo(addr);
      assert.ok(connection);
      const closed = once(connection, 'close');
      const removed: string[] = [];
      namesrv.routeInfoManager.on('brokerRemoved', (a, reason) => removed.push(`${a} ${reason}`));
      clock.advance(120_000);
      assert.deepEqual(removed, [], 'scans at 5 s, 15 s, ... 115 s find it alive');
      clock.advance(5_000);
      assert.deepEqual(removed, ['10.0.0.1:10911 expired'], 'the scan at 125 s drops it');
      await closed;
      assert.match(connection.closeReason ?? '', /closed by peer|stream/);
      assert.equal(namesrv.routeInfoManager.pickupTopicRouteData('T'), undefined);
      await namesrv.shutdown();
      assert.equal(clock.pending, 0, 'shutdown cancels the scan');
    },
  );
});

describe('KV config over TCP with kvConfig.json', () => {
  test('put, get, list, delete; written atomically with a .bak; read again on start', LIMIT, async () => {
    const path = kvPath();
    const first = await start({ kvConfigPath: path });
    const put = await first.call(kv(RequestCode.PUT_KV_CONFIG, { namespace: 'ns', key: 'k', value: 'v1' }));
    assert.equal(put.code, ResponseCode.SUCCESS);
    assert.equal(readFileSync(path, 'utf8'), '{"configTable":{"ns":{"k":"v1"}}}');
    assert.equal(existsSync(`${path}.bak`), false);
    await first.call(kv(RequestCode.PUT_KV_CONFIG, { namespace: 'ns', key: 'k2', value: 'v2' }));
    assert.equal(readFileSync(`${path}.bak`, 'utf8'), '{"configTable":{"ns":{"k":"v1"}}}');
    assert.equal(existsSync(`${path}.tmp`), false);

    const got = await first.call(kv(RequestCode.GET_KV_CONFIG, { namespace: 'ns', key: 'k' }));
    assert.deepEqual(got.extFields, { value: 'v1' });
    const missing = await first.call(kv(RequestCode.GET_KV_CONFIG, { namespace: 'ns', key: 'nope' }));
    assert.equal(missing.code, ResponseCode.QUERY_NOT_FOUND);
    assert.equal(missing.remark, 'No config item, Namespace: ns Key: nope');
    const list = await first.call(kv(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'ns' }));
    assert.deepEqual(Object.fromEntries(decodeKVTable(list.body)), { k: 'v1', k2: 'v2' });
    const noNs = await first.call(kv(RequestCode.GET_KVLIST_BY_NAMESPACE, { namespace: 'other' }));
    assert.equal(noNs.code, ResponseCode.QUERY_NOT_FOUND);
    assert.equal(noNs.remark, 'No config item, Namespace: other');
    const del = await first.call(kv(RequestCode.DELETE_KV_CONFIG, { namespace: 'ns', key: 'k2' }));
    assert.equal(del.code, ResponseCode.SUCCESS);
    const missingValue = await first.call(kv(RequestCode.PUT_KV_CONFIG, { namespace: 'ns', key: 'k' }));
    assert.equal(missingValue.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missingValue.remark, 'the custom field <value> is null');
    await first.namesrv.shutdown();

    const second = await start({ kvConfigPath: path });
    const again = await second.call(kv(RequestCode.GET_KV_CONFIG, { namespace: 'ns', key: 'k' }));
    assert.deepEqual(again.extFields, { value: 'v1' });
    const gone = await second.call(kv(RequestCode.GET_KV_CONFIG, { namespace: 'ns', key: 'k2' }));
    assert.equal(gone.code, ResponseCode.QUERY_NOT_FOUND);
  });

  test(
    'ORDER_TOPIC_CONFIG goes to registering brokers, and into routes when orderMessageEnable',
    LIMIT,
    async () => {
      const { call, namesrv } = await start();
      await call(
        kv(RequestCode.PUT_KV_CONFIG, { namespace: 'ORDER_TOPIC_CONFIG', key: 'T', value: 'broker-a:4' }),
      );
      const reply = await call(registerRequest({ topics: topics('T') }));
      assert.deepEqual(Object.fromEntries(decodeKVTable(reply.body)), { T: 'broker-a:4' });
      assert.equal(decodeTopicRouteData((await call(route('T'))).body).orderTopicConf, undefined);
      const update = createRequest(RequestCode.UPDATE_NAMESRV_CONFIG, {
        body: Buffer.from('orderMessageEnable=true'),
      });
      assert.equal((await call(update)).code, ResponseCode.SUCCESS);
      assert.equal(namesrv.settings.orderMessageEnable, true);
      assert.equal(decodeTopicRouteData((await call(route('T'))).body).orderTopicConf, 'broker-a:4');
    },
  );

  test('a kvConfig.json that cannot be parsed stops the start (as upstream)', LIMIT, async () => {
    const path = kvPath();
    const namesrv = createNamesrv({ listenPort: 0, kvConfigPath: path, logger: quiet });
    running.push(namesrv);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '{"configTable":{"ns":');
    await assert.rejects(namesrv.start(), RemotingCommandError);
    assert.equal(namesrv.address, undefined, 'not left listening');
  });

  test('a write that fails is logged and the change stays in memory', LIMIT, async () => {
    const blockedDir = join(dir, 'blocked');
    writeFileSync(blockedDir, 'a file where a directory should be');
    const records: LogRecord[] = [];
    const logger = createLogger('test', { level: 'error', sink: (r) => records.push(r) });
    const { call } = await start({ kvConfigPath: join(blockedDir, 'kvConfig.json'), logger });
    const put = await call(kv(RequestCode.PUT_KV_CONFIG, { namespace: 'ns', key: 'k', value: 'v' }));
    assert.equal(put.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      records.map((r) => [r.component, r.msg]),
      [['test.kvconfig', 'persisting the KV config failed']],
    );
    const got = await call(kv(RequestCode.GET_KV_CONFIG, { namespace: 'ns', key: 'k' }));
    assert.deepEqual(got.extFields, { value: 'v' });
  });
});
