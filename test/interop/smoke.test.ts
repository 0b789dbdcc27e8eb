// Smoke test for the interop harness: the official 4.9.x name server and broker start on loopback,
// the official NettyRemotingClient (RemotingProbe) can ask the name server for the cluster and see
// the broker, and RemotingProbe and ProbeServer talk to each other in both serializations.
// Needs `node scripts/interop-prepare.mjs` first (npm run test:interop does it).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type BrokerHandle,
  type NamesrvHandle,
  type ProbeServerHandle,
  remotingProbe,
  remotingProbeOneway,
  startBroker,
  startNamesrv,
  startProbeServer,
  tcpConnectOnce,
} from './harness.js';

const GET_BROKER_CLUSTER_INFO = 106;
const GET_ROUTEINFO_BY_TOPIC = 105;
const HEART_BEAT = 34;
const UPDATE_CONSUMER_OFFSET = 15;

describe('interop smoke: official name server + broker', { timeout: 240_000 }, () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;
  let failed = false;

  before(
    async () => {
      namesrv = await startNamesrv();
      broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-smoke' });
    },
    { timeout: 150_000 },
  );

  after(
    async () => {
      if (failed) {
        for (const h of [namesrv, broker]) {
          if (h !== undefined) process.stderr.write(`${h.logTail(40)}\n`);
        }
      }
      await broker?.close();
      await namesrv?.close();
    },
    { timeout: 60_000 },
  );

  /** Marks the suite failed so `after` prints the server logs, then rethrows. */
  async function step(fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      failed = true;
      throw e;
    }
  }

  test('name server, broker listen, VIP and HA ports accept TCP connections', { timeout: 15_000 }, () =>
    step(async () => {
      assert.ok(namesrv !== undefined && broker !== undefined);
      await tcpConnectOnce(namesrv.port, 5000);
      await tcpConnectOnce(broker.port, 5000);
      await tcpConnectOnce(broker.vipPort, 5000);
      await tcpConnectOnce(broker.haPort, 5000);
      assert.equal(broker.vipPort, broker.port - 2);
      assert.equal(broker.haPort, broker.port + 1);
    }),
  );

  for (const serializeType of ['JSON', 'ROCKETMQ'] as const) {
    test(
      `RemotingProbe GET_BROKER_CLUSTER_INFO (${serializeType}) lists the broker`,
      { timeout: 60_000 },
      () =>
        step(async () => {
          assert.ok(namesrv !== undefined && broker !== undefined);
          const reply = await remotingProbe(namesrv.addr, GET_BROKER_CLUSTER_INFO, { serializeType });
          assert.equal(reply.code, 0, `remark: ${String(reply.remark)}`);
          assert.equal(reply.flag & 1, 1, 'response bit');
          assert.equal(reply.serializeTypeCurrentRPC, serializeType, 'reply uses the request serialize type');
          assert.equal(reply.version, 409, 'name server answers with MQVersion V4_9_8');
          assert.ok(reply.bodyHex !== null);
          const body = Buffer.from(reply.bodyHex, 'hex').toString('utf8');
          // ClusterInfo is fastjson's bare-key form: {"brokerAddrTable":{"broker-smoke":{"brokerAddrs":{0:"127.0.0.1:P"},...
          assert.match(
            body,
            /^\{"brokerAddrTable":\{"broker-smoke":\{"brokerAddrs":\{0:"127\.0\.0\.1:\d+"\}/,
          );
          assert.ok(body.includes(`0:"${broker.addr}"`), body);
          assert.ok(body.includes(`"clusterAddrTable":{"DefaultCluster":["broker-smoke"]}`), body);
        }),
    );
  }

  test('GET_ROUTEINFO_BY_TOPIC for the auto-create topic TBW102 names the broker', { timeout: 60_000 }, () =>
    step(async () => {
      assert.ok(namesrv !== undefined && broker !== undefined);
      const reply = await remotingProbe(namesrv.addr, GET_ROUTEINFO_BY_TOPIC, {
        extFields: { topic: 'TBW102' },
      });
      assert.equal(reply.code, 0, `remark: ${String(reply.remark)}`);
      const body = Buffer.from(reply.bodyHex ?? '', 'hex').toString('utf8');
      // version 409 >= 401: the standard-JSON form with quoted brokerId keys
      assert.ok(body.includes(`"brokerAddrs":{"0":"${broker.addr}"}`), body);
    }),
  );
});

describe('interop smoke: RemotingProbe <-> ProbeServer', { timeout: 120_000 }, () => {
  let server: ProbeServerHandle | undefined;

  before(
    async () => {
      server = await startProbeServer();
    },
    { timeout: 60_000 },
  );
  after(() => server?.close(), { timeout: 30_000 });

  for (const serializeType of ['JSON', 'ROCKETMQ'] as const) {
    test(`request and response round trip (${serializeType})`, { timeout: 60_000 }, async () => {
      assert.ok(server !== undefined);
      const reply = await remotingProbe(server.addr, HEART_BEAT, {
        serializeType,
        extFields: { alpha: '1', text: 'naïve ü' },
        body: Buffer.from('hello probe', 'utf8'),
      });
      assert.equal(reply.code, 0);
      assert.equal(reply.remark, 'probe-server ok');
      assert.deepEqual(reply.extFields, { echo: String(HEART_BEAT) });
      assert.equal(reply.serializeTypeCurrentRPC, serializeType);
      const seen = await server.waitForRequest(
        (r) => r.request.code === HEART_BEAT && r.request.serializeTypeCurrentRPC === serializeType,
        10_000,
      );
      assert.equal(seen.oneway, false);
      assert.deepEqual(seen.request.extFields, { alpha: '1', text: 'naïve ü' });
      assert.equal(seen.request.bodyHex, Buffer.from('hello probe', 'utf8').toString('hex'));
      assert.equal(seen.request.version, 409);
      assert.equal(seen.request.opaque, reply.opaque, 'response echoes the opaque');
    });
  }

  test('oneway request arrives with flag bit 1 and gets no reply', { timeout: 60_000 }, async () => {
    assert.ok(server !== undefined);
    const ack = await remotingProbeOneway(server.addr, UPDATE_CONSUMER_OFFSET, {
      extFields: { marker: 'oneway-smoke' },
    });
    assert.equal(ack.sent, true);
    const seen = await server.waitForRequest((r) => r.request.extFields?.marker === 'oneway-smoke', 10_000);
    assert.equal(seen.oneway, true);
    assert.equal(seen.request.flag & 2, 2);
  });
});
