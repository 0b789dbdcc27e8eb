/**
 * Our name server (in this process) with the official broker (4.9.x, and the newest 5.x from
 * interop/server5), the official 4.9.8 producer, push consumer and DefaultMQAdminExt: the broker registers and shows up in cluster info and the TBW102 route; a producer
 * auto-creates a topic through TBW102 and a push consumer reads every message back, all routed by us;
 * admin calls get the answers the Java tools expect; killing the broker removes it at once.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/common/logger.js';
import { decodeClusterInfo, decodeTopicRouteData } from '../../src/common/protocol/route.js';
import { decodeTopicList } from '../../src/common/protocol/topic-list.js';
import { createNamesrv, type NamesrvController } from '../../src/namesrv/index.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { type BrokerHandle, remotingProbe, runJava, startBroker, UPSTREAM_LINES } from './harness.js';

const PROBE = 'org.rocketmqts.interop.OfficialClientsProbe';
const BROKER_NAME = 'broker-ts-namesrv';
const CLUSTER = 'DefaultCluster';
const MESSAGES = 20;

interface Step {
  ok: boolean;
  value?: unknown;
  code?: number;
  error?: string;
}

function lastJsonLine(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split('\n').pop() ?? '';
  const parsed: unknown = JSON.parse(line);
  assert.ok(typeof parsed === 'object' && parsed !== null, `not a JSON object: ${line}`);
  return parsed as Record<string, unknown>;
}

for (const { upstream, name: lineName } of UPSTREAM_LINES)
  describe(`official ${lineName} broker and 4.9.8 clients -> our name server`, { timeout: 600_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmq-ts-namesrv-interop-'));
    const client = new RemotingClient({ connectTimeoutMs: 3000 });
    let namesrv: NamesrvController | undefined;
    let broker: BrokerHandle | undefined;
    let addr = '';
    const timings: Record<string, number> = {};

    const route = (topic: string, version = 409) =>
      client.invoke(
        addr,
        createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
          version,
          extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
        }),
        { timeoutMs: 5000 },
      );

    before(
      async () => {
        let t = Date.now();
        namesrv = createNamesrv({
          listenPort: 0,
          kvConfigPath: join(dir, 'kvConfig.json'),
          logger: createLogger('namesrv', { level: 'warn' }),
        });
        const bound = await namesrv.start();
        addr = `127.0.0.1:${bound.port}`;
        timings.namesrvStartMs = Date.now() - t;
        t = Date.now();
        broker = await startBroker({
          namesrvAddr: addr,
          brokerName: BROKER_NAME,
          clusterName: CLUSTER,
          upstream,
        });
        timings.brokerBootAndRegisterMs = Date.now() - t;
      },
      { timeout: 180_000 },
    );

    after(
      async () => {
        await client.close();
        await broker?.close();
        await namesrv?.shutdown();
        rmSync(dir, { recursive: true, force: true });
        process.stdout.write(`# namesrv interop timings: ${JSON.stringify(timings)}\n`);
      },
      { timeout: 60_000 },
    );

    test('the official broker registers: cluster info lists it and TBW102 has a route', {
      timeout: 30_000,
    }, async () => {
      assert.ok(namesrv && broker);
      const info = decodeClusterInfo(
        (await client.invoke(addr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), { timeoutMs: 5000 }))
          .body,
      );
      assert.deepEqual(info.clusterAddrTable.get(CLUSTER), [BROKER_NAME]);
      assert.deepEqual([...(info.brokerAddrTable.get(BROKER_NAME)?.brokerAddrs ?? [])], [[0, broker.addr]]);
      const live = namesrv.routeInfoManager.getBrokerLiveInfo(broker.addr);
      assert.equal(live?.haServerAddr, `127.0.0.1:${broker.haPort}`);
      assert.ok(live?.channel, 'registered on a connection we can watch');

      for (const version of [409, 317]) {
        const reply = await route('TBW102', version);
        assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
        assert.equal(reply.body?.toString().includes('"brokerAddrs":{"0"'), version >= 401);
        const data = decodeTopicRouteData(reply.body);
        assert.equal(data.brokerDatas[0]?.brokerAddrs.get(0), broker.addr);
        const q = data.queueDatas[0];
        assert.ok(q && q.writeQueueNums > 0 && (q.perm & 0x2) !== 0, JSON.stringify(q));
      }
      const topics = decodeTopicList(
        (
          await client.invoke(addr, createRequest(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER), {
            timeoutMs: 5000,
          })
        ).body,
      ).topicList;
      for (const t of ['TBW102', BROKER_NAME, CLUSTER, 'SELF_TEST_TOPIC']) assert.ok(topics.includes(t), t);
    });

    test('an official producer and push consumer work through our name server', {
      timeout: 240_000,
    }, async () => {
      assert.ok(namesrv && broker);
      const topic = `ts_ns_roundtrip_${Date.now()}`;
      assert.equal((await route(topic)).code, ResponseCode.TOPIC_NOT_EXIST, 'the topic starts unknown');
      const started = Date.now();
      const r = await runJava(PROBE, ['roundtrip', addr, topic, String(MESSAGES), '90000'], {
        timeoutMs: 200_000,
      });
      timings.javaRoundtripProcessMs = Date.now() - started;
      assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
      const out = lastJsonLine(r.stdout);
      timings.sendMs = Number(out.sendMs);
      timings.consumeMs = Number(out.consumeMs);
      const sent = out.sent as Array<Record<string, unknown>>;
      const received = out.received as Array<Record<string, unknown>>;
      assert.equal(sent.length, MESSAGES);
      for (const s of sent) {
        assert.equal(s.status, 'SEND_OK');
        assert.equal(s.brokerName, BROKER_NAME);
      }
      assert.equal(out.complete, true);
      assert.deepEqual(
        received.map((m) => m.body).sort(),
        Array.from({ length: MESSAGES }, (_, i) => `body-${i}`).sort(),
      );
      for (const m of received) {
        assert.equal(m.tags, 'TagA');
        assert.equal(m.keys, `key-${String(m.body).slice(5)}`);
        assert.equal(m.idx, String(m.body).slice(5));
      }
      assert.deepEqual(
        new Set(received.map((m) => m.msgId)),
        new Set(sent.map((s) => s.msgId)),
        'the consumer sees the ids the producer got',
      );
      // The broker registered the auto-created topic with us right away.
      const data = decodeTopicRouteData((await route(topic)).body);
      assert.equal(data.brokerDatas[0]?.brokerName, BROKER_NAME);
    });

    test('DefaultMQAdminExt: cluster, routes, topic lists, KV, config and write permissions', {
      timeout: 120_000,
    }, async () => {
      assert.ok(namesrv && broker);
      const r = await runJava(PROBE, ['admin', addr, CLUSTER, BROKER_NAME], { timeoutMs: 100_000 });
      assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr.slice(-3000)}`);
      const steps = lastJsonLine(r.stdout).steps as Record<string, Step>;
      const ok = (name: string): unknown => {
        const s = steps[name];
        assert.ok(s?.ok, `${name}: ${JSON.stringify(s)}`);
        return s.value;
      };
      const failed = (name: string, code: number): string => {
        const s = steps[name];
        assert.ok(s && !s.ok, `${name} should fail: ${JSON.stringify(s)}`);
        assert.equal(s.code, code, `${name}: ${JSON.stringify(s)}`);
        return s.error ?? '';
      };
      assert.deepEqual(ok('clusterInfo'), {
        brokerAddrTable: {
          [BROKER_NAME]: { cluster: CLUSTER, brokerName: BROKER_NAME, brokerAddrs: { 0: broker.addr } },
        },
        clusterAddrTable: { [CLUSTER]: [BROKER_NAME] },
      });
      const tbw = ok('routeTBW102') as { brokerDatas: unknown[]; queueDatas: Array<{ perm: number }> };
      assert.equal(tbw.brokerDatas.length, 1);
      assert.match(
        failed('routeUnknown', ResponseCode.TOPIC_NOT_EXIST),
        /No topic route info in name server/,
      );
      assert.ok((ok('allTopics') as string[]).includes('TBW102'));
      assert.ok((ok('topicsByCluster') as string[]).includes('TBW102'));
      assert.equal(ok('kvPut'), 'done');
      assert.equal(ok('kvGet'), 'probe value ü');
      assert.deepEqual(ok('kvList'), { probe_key: 'probe value ü' });
      assert.equal(ok('kvDelete'), 'done');
      failed('kvGetDeleted', ResponseCode.QUERY_NOT_FOUND);
      const config = ok('namesrvConfig') as Record<string, string>;
      assert.equal(config.kvConfigPath, join(dir, 'kvConfig.json'));
      assert.equal(config.orderMessageEnable, 'false');
      assert.equal(ok('updateAllowed'), 'done');
      assert.equal(namesrv.settings.productEnvName, 'probe-env');
      assert.match(
        failed('updateForbidden', ResponseCode.NO_PERMISSION),
        /Can not update config in black list/,
      );
      const topicCount = ok('wipeWritePerm') as number;
      assert.ok(topicCount > 1);
      // TBW102 is RWX (7) on an auto-creating broker: wiping clears W only, adding sets exactly RW.
      const before = tbw.queueDatas[0]?.perm ?? 0;
      assert.equal((ok('routeAfterWipe') as typeof tbw).queueDatas[0]?.perm, before & ~2);
      assert.equal(ok('addWritePerm'), topicCount);
      assert.equal((ok('routeAfterAdd') as typeof tbw).queueDatas[0]?.perm, 6);
    });

    test('an unknown request code from the official client is answered REQUEST_CODE_NOT_SUPPORTED', {
      timeout: 60_000,
    }, async () => {
      const reply = await remotingProbe(addr, 9999, { requestTimeoutMs: 3000 });
      assert.equal(reply.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
      assert.equal(reply.remark, ' request type 9999 not supported');
    });

    test('killing the broker removes it at once (its channel closes)', { timeout: 60_000 }, async () => {
      assert.ok(namesrv && broker);
      const removed = once(namesrv.routeInfoManager, 'brokerRemoved', {
        signal: AbortSignal.timeout(20_000),
      });
      const killedAt = Date.now();
      await broker.close();
      const [brokerAddr, reason] = await removed;
      timings.removalAfterKillMs = Date.now() - killedAt;
      assert.equal(brokerAddr, broker.addr);
      assert.equal(reason, 'channelDestroyed');
      assert.ok(timings.removalAfterKillMs < 10_000, `${timings.removalAfterKillMs} ms`);
      broker = undefined;
      const info = decodeClusterInfo(
        (await client.invoke(addr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), { timeoutMs: 5000 }))
          .body,
      );
      assert.equal(info.brokerAddrTable.size, 0);
      assert.equal(info.clusterAddrTable.size, 0);
      assert.equal((await route('TBW102')).code, ResponseCode.TOPIC_NOT_EXIST);
    });
  });
