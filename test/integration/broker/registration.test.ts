/**
 * The broker and name servers over TCP on 127.0.0.1: registration with our name server (cluster info
 * and routes show the broker; topic changes show at once; the periodic registration; shutdown
 * unregisters), the exact REGISTER_BROKER a fake name server receives and how the broker applies its
 * reply, the VIP channel on listenPort - 2, and NOTIFY_CONSUMER_IDS_CHANGED to real client sockets.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type CreateBrokerOptions, createBroker } from '../../../src/broker/broker-controller.js';
import { messageBodyCrc } from '../../../src/common/message/crc32.js';
import { encodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { decodeRegisterBrokerBody } from '../../../src/common/protocol/register-broker-body.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import type { NamesrvController } from '../../../src/namesrv/namesrv-controller.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  QueryDataVersionResponseHeader,
  RegisterBrokerRequestHeader,
  RegisterBrokerResponseHeader,
  UnRegisterBrokerRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient, RemotingServer, type RPCHook } from '../../../src/remoting/transport/index.js';
import {
  consumerHeartbeat,
  heartbeatRequest,
  ManualClock,
  quiet,
  TEST_ENV,
} from '../../unit/broker/helpers.js';
import { createTopic, startLoopbackNamesrv } from './slave-support.js';

const LIMIT = { timeout: 15_000 };
const dir = mkdtempSync(join(tmpdir(), 'rmq-broker-reg-'));
let count = 0;
const cleanups: Array<() => Promise<void>> = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves with each request of `code` a server has answered, in order. */
function watch(server: RemotingServer, code: number) {
  const seen: RemotingCommand[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hook: RPCHook = {
    doBeforeRequest: () => {},
    doAfterResponse: (_addr, request) => {
      if (request.code !== code) return;
      seen.push(request);
      for (const w of waiters.splice(0)) {
        if (seen.length >= w.n) w.resolve();
        else waiters.push(w);
      }
    },
  };
  server.registerRPCHook(hook);
  return {
    seen,
    /** Resolves once `n` requests in total have been seen. */
    count: (n: number) =>
      seen.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
  };
}

async function startNamesrv(): Promise<{ namesrv: NamesrvController; addr: string }> {
  count++;
  const started = await startLoopbackNamesrv(join(dir, `ns-${count}`));
  cleanups.push(() => started.namesrv.shutdown());
  return started;
}

function newBroker(config: BrokerConfigOverrides, options: Partial<CreateBrokerOptions> = {}) {
  count++;
  const clock = new ManualClock();
  const broker = createBroker({
    config: {
      storePathRootDir: join(dir, `store-${count}`),
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      brokerName: 'broker-a',
      registerBrokerTimeoutMills: 3000,
      ...config,
    },
    env: TEST_ENV,
    clock,
    logger: quiet,
    ...options,
  });
  cleanups.push(() => broker.shutdown());
  return { broker, clock };
}

function client(): RemotingClient {
  const c = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  cleanups.push(() => c.close());
  return c;
}

describe('registration with our name server', () => {
  test('start registers; cluster info and routes show the broker', LIMIT, async () => {
    const { namesrv, addr } = await startNamesrv();
    const { broker } = newBroker({ namesrvAddr: addr });
    const { address } = await broker.start();
    const brokerAddr = `127.0.0.1:${address.port}`;
    assert.equal(broker.brokerAddr, brokerAddr);
    const info = namesrv.routeInfoManager.getAllClusterInfo();
    assert.deepEqual(info.clusterAddrTable.get('DefaultCluster'), ['broker-a']);
    assert.equal(info.brokerAddrTable.get('broker-a')?.brokerAddrs.get(0), brokerAddr);
    const route = namesrv.routeInfoManager.pickupTopicRouteData('TBW102');
    assert.deepEqual(route?.queueDatas, [
      { brokerName: 'broker-a', readQueueNums: 8, writeQueueNums: 8, perm: 7, topicSysFlag: 0 },
    ]);
    assert.ok(namesrv.routeInfoManager.pickupTopicRouteData('DefaultCluster_REPLY_TOPIC'));
    assert.equal(
      namesrv.routeInfoManager.getBrokerLiveInfo(brokerAddr)?.haServerAddr,
      `127.0.0.1:${address.port + 1}`,
    );
  });

  test('UPDATE_AND_CREATE_TOPIC shows in routes before the answer', LIMIT, async () => {
    const { namesrv, addr } = await startNamesrv();
    const { broker } = newBroker({ namesrvAddr: addr });
    const { address } = await broker.start();
    const reply = await client().invoke(`127.0.0.1:${address.port}`, createTopic('TopicNew'), {
      timeoutMs: 5000,
    });
    assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
    assert.deepEqual(namesrv.routeInfoManager.pickupTopicRouteData('TopicNew')?.queueDatas, [
      { brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 },
    ]);
  });

  test(
    'a topic auto-created by a heartbeat (retry topic) is registered at once (oneway)',
    LIMIT,
    async () => {
      const { namesrv, addr } = await startNamesrv();
      const registrations = watch(namesrv.remotingServer, RequestCode.REGISTER_BROKER);
      const { broker } = newBroker({ namesrvAddr: addr });
      const { address } = await broker.start();
      await registrations.count(1);
      const reply = await client().invoke(
        `127.0.0.1:${address.port}`,
        heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])),
      );
      assert.equal(reply.code, ResponseCode.SUCCESS);
      await registrations.count(2);
      assert.equal(registrations.seen[1]?.flag, 2, 'oneway');
      assert.deepEqual(
        namesrv.routeInfoManager.pickupTopicRouteData('%RETRY%cg')?.queueDatas[0]?.writeQueueNums,
        1,
      );
    },
  );

  test(
    'periodic registration: first after 10 s, then every registerNameServerPeriod clamped to [10 s, 60 s]',
    LIMIT,
    async () => {
      const { namesrv, addr } = await startNamesrv();
      const registrations = watch(namesrv.remotingServer, RequestCode.REGISTER_BROKER);
      // The first transaction check pass creates the half topic, which registers once more.
      const { broker, clock } = newBroker({
        namesrvAddr: addr,
        registerNameServerPeriod: 90_000,
        transactionCheckInterval: 3_600_000,
      });
      await broker.start();
      await registrations.count(1);
      clock.advance(9_999);
      assert.equal(clock.pending > 0, true);
      clock.advance(1);
      await registrations.count(2);
      clock.advance(59_999);
      clock.advance(1);
      await registrations.count(3);
      assert.equal(registrations.seen.length, 3);
    },
  );

  test('registers with every name server; shutdown unregisters from each', LIMIT, async () => {
    const a = await startNamesrv();
    const b = await startNamesrv();
    const unregA = watch(a.namesrv.remotingServer, RequestCode.UNREGISTER_BROKER);
    const unregB = watch(b.namesrv.remotingServer, RequestCode.UNREGISTER_BROKER);
    const { broker } = newBroker({ namesrvAddr: `${a.addr};${b.addr}` });
    await broker.start();
    const brokerAddr = broker.brokerAddr;
    for (const ns of [a.namesrv, b.namesrv]) assert.ok(ns.routeInfoManager.getBrokerLiveInfo(brokerAddr));
    const removed = once(a.namesrv.routeInfoManager, 'brokerRemoved');
    await broker.shutdown();
    await Promise.all([unregA.count(1), unregB.count(1)]);
    assert.deepEqual(await removed, [brokerAddr, 'unregistered']);
    const header = decodeHeader(UnRegisterBrokerRequestHeader, unregA.seen[0]?.extFields);
    assert.deepEqual(header, {
      brokerName: 'broker-a',
      brokerAddr,
      clusterName: 'DefaultCluster',
      brokerId: 0n,
    });
    for (const ns of [a.namesrv, b.namesrv]) {
      assert.equal(ns.routeInfoManager.getAllClusterInfo().brokerAddrTable.size, 0);
      assert.equal(ns.routeInfoManager.pickupTopicRouteData('TBW102'), undefined);
    }
  });

  test('a name server that is down does not stop the start', LIMIT, async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const { namesrv, addr } = await startNamesrv();
    const { broker } = newBroker({ namesrvAddr: `127.0.0.1:${port};${addr}` });
    await broker.start();
    assert.ok(namesrv.routeInfoManager.getBrokerLiveInfo(broker.brokerAddr));
  });
});

/** A name server that records requests and answers as told. */
async function fakeNamesrv(answer: (request: RemotingCommand) => RemotingCommand) {
  const server = new RemotingServer({}, { logger: quiet });
  const requests: RemotingCommand[] = [];
  const waiters: Array<() => void> = [];
  for (const code of [
    RequestCode.REGISTER_BROKER,
    RequestCode.UNREGISTER_BROKER,
    RequestCode.QUERY_DATA_VERSION,
  ]) {
    server.registerProcessor(code, {
      processRequest: (_ctx, request) => {
        requests.push(request);
        for (const w of waiters.splice(0)) w();
        return answer(request);
      },
    });
  }
  const bound = await server.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(() => server.close());
  const codes = () => requests.map((r) => r.code);
  const until = async (pred: () => boolean) => {
    while (!pred()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { addr: `127.0.0.1:${bound.port}`, requests, codes, until };
}

describe('REGISTER_BROKER as a fake name server sees it', () => {
  test('header, CRC and uncompressed body; the reply is applied', LIMIT, async () => {
    const ns = await fakeNamesrv((request) =>
      createResponse(request, ResponseCode.SUCCESS, {
        extFields: encodeHeader(RegisterBrokerResponseHeader, {
          masterAddr: '10.0.0.1:10911',
          haServerAddr: '10.0.0.1:10912',
        }),
        body: encodeKVTable(new Map([['TopicOrder', 'broker-a:8']])),
      }),
    );
    const { broker } = newBroker({ namesrvAddr: ns.addr, brokerClusterName: 'c1', brokerName: 'b1' });
    broker.topicConfigManager.updateTopicConfig(createTopicConfig('TopicOrder'));
    const { address } = await broker.start();
    const register = ns.requests[0];
    assert.equal(register?.code, RequestCode.REGISTER_BROKER);
    assert.equal(register?.version, 409);
    const h = decodeHeader(RegisterBrokerRequestHeader, register?.extFields);
    assert.deepEqual(h, {
      brokerName: 'b1',
      brokerAddr: `127.0.0.1:${address.port}`,
      clusterName: 'c1',
      haServerAddr: `127.0.0.1:${address.port + 1}`,
      brokerId: 0n,
      compressed: false,
      bodyCrc32: messageBodyCrc(register?.body ?? Buffer.alloc(0)),
    });
    const body = decodeRegisterBrokerBody(register?.body, false, { timestamp: 0n });
    assert.deepEqual(body.filterServerList, []);
    assert.deepEqual(
      new Set(body.topicConfigSerializeWrapper.topicConfigTable.keys()),
      new Set(broker.topicConfigManager.topicConfigTable.keys()),
    );
    assert.deepEqual(body.topicConfigSerializeWrapper.dataVersion.counter, 1n);
    assert.equal(broker.masterAddr, '10.0.0.1:10911');
    assert.equal(broker.haMasterAddr, '10.0.0.1:10912');
    assert.equal(broker.topicConfigManager.isOrderTopic('TopicOrder'), true, 'ORDER_TOPIC_CONFIG applied');
    await broker.shutdown();
    assert.deepEqual(ns.codes(), [RequestCode.REGISTER_BROKER, RequestCode.UNREGISTER_BROKER]);
  });

  test('compressedRegister and a read-only broker permission', LIMIT, async () => {
    const ns = await fakeNamesrv((request) => createResponse(request, ResponseCode.SUCCESS));
    const { broker } = newBroker({ namesrvAddr: ns.addr, compressedRegister: true, brokerPermission: 4 });
    await broker.start();
    const register = ns.requests[0];
    const h = decodeHeader(RegisterBrokerRequestHeader, register?.extFields);
    assert.equal(h.compressed, true);
    const body = decodeRegisterBrokerBody(register?.body, true, { timestamp: 0n });
    for (const tc of body.topicConfigSerializeWrapper.topicConfigTable.values())
      assert.equal(tc.perm, 4, tc.topicName);
  });

  test(
    'forceRegister=false asks QUERY_DATA_VERSION first and skips an unchanged registration',
    LIMIT,
    async () => {
      let changed = true;
      const ns = await fakeNamesrv((request) =>
        request.code === RequestCode.QUERY_DATA_VERSION
          ? createResponse(request, ResponseCode.SUCCESS, {
              extFields: encodeHeader(QueryDataVersionResponseHeader, { changed }),
            })
          : createResponse(request, ResponseCode.SUCCESS),
      );
      const { broker, clock } = newBroker({ namesrvAddr: ns.addr, forceRegister: false });
      await broker.start();
      assert.deepEqual(ns.codes(), [RequestCode.REGISTER_BROKER], 'the first registration is always forced');
      clock.advance(10_000);
      await ns.until(() => ns.requests.length >= 3);
      assert.deepEqual(ns.codes(), [
        RequestCode.REGISTER_BROKER,
        RequestCode.QUERY_DATA_VERSION,
        RequestCode.REGISTER_BROKER,
      ]);
      changed = false;
      clock.advance(30_000);
      await ns.until(() => ns.requests.length >= 4);
      await broker.registerBrokerAll(true, false, false);
      assert.deepEqual(ns.codes().slice(3), [RequestCode.QUERY_DATA_VERSION, RequestCode.QUERY_DATA_VERSION]);
    },
  );

  test('an error answer is logged and the broker keeps running', LIMIT, async () => {
    const ns = await fakeNamesrv((request) =>
      createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'crc32 not match' }),
    );
    const { broker } = newBroker({ namesrvAddr: ns.addr });
    await broker.start();
    assert.equal(broker.masterAddr, undefined);
    assert.deepEqual(ns.codes(), [RequestCode.REGISTER_BROKER]);
  });
});

describe('ports', () => {
  /** A port p with p and p - 2 free (the broker binds both). */
  async function freePortPair(): Promise<number> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const s = createServer();
      s.listen(0, '127.0.0.1');
      await once(s, 'listening');
      const port = (s.address() as { port: number }).port;
      await new Promise<void>((resolve) => s.close(() => resolve()));
      if (port < 1026) continue;
      const t = createServer();
      const ok = await new Promise<boolean>((resolve) => {
        t.once('error', () => resolve(false));
        t.listen(port - 2, '127.0.0.1', () => resolve(true));
      });
      if (ok) {
        await new Promise<void>((resolve) => t.close(() => resolve()));
        return port;
      }
    }
    throw new Error('no free port pair');
  }

  test('the VIP channel listens on listenPort - 2 and serves all but PULL_MESSAGE', LIMIT, async () => {
    const port = await freePortPair();
    const { broker } = newBroker({ listenPort: port });
    const { address, vipAddress } = await broker.start();
    assert.equal(address.port, port);
    assert.equal(vipAddress.port, port - 2);
    const c = client();
    const hb = await c.invoke(`127.0.0.1:${port - 2}`, heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
    assert.equal(hb.code, ResponseCode.SUCCESS);
    const pull = await c.invoke(`127.0.0.1:${port - 2}`, createRequest(RequestCode.PULL_MESSAGE));
    assert.equal(pull.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });

  test('a taken port fails the start cleanly', LIMIT, async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as { port: number }).port;
    const { broker } = newBroker({ listenPort: port });
    await assert.rejects(broker.start(), /EADDRINUSE/);
    assert.equal(broker.vipAddress, undefined);
  });
});

describe('clients over TCP', () => {
  test(
    'NOTIFY_CONSUMER_IDS_CHANGED reaches the other member; a closed socket leaves the group',
    LIMIT,
    async () => {
      const { broker } = newBroker({});
      const { address } = await broker.start();
      const addr = `127.0.0.1:${address.port}`;
      const notified: RemotingCommand[] = [];
      let onNotify: (() => void) | undefined;
      const a = client();
      a.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
        processRequest: (_ctx, request) => {
          notified.push(request);
          onNotify?.();
          return undefined;
        },
      });
      const b = client();
      await a.invoke(addr, heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
      const next = () => new Promise<void>((resolve) => (onNotify = resolve));
      const second = next();
      await b.invoke(addr, heartbeatRequest(consumerHeartbeat('B', 'cg', ['T'])));
      await second;
      assert.deepEqual(notified.at(-1)?.extFields, { consumerGroup: 'cg' });
      const third = next();
      await b.close();
      await third;
      assert.deepEqual(broker.consumerManager.getConsumerGroupInfo('cg')?.getAllClientId(), ['A']);
    },
  );
});
