/**
 * `rmq admin` next to the official mqadmin (rocketmq-tools 4.9.8), both against our name server and
 * broker and against the official 4.9.8 ones: the same command on the same cluster gives the same
 * facts. Each output is parsed (rows, keys, values), not compared byte for byte: addresses, clocks
 * and TPS figures may differ between two runs, the facts must not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createProducer, createPushConsumer, SendStatus } from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import type { MqadminSession } from './mqadmin-session.js';
import {
  adminTargets,
  type Cluster,
  keyValues,
  messageDetail,
  messageLines,
  officialIn,
  ours,
  rows,
  runOurs,
  sorted,
  startClusterAndSession,
} from './rmq-admin-support.js';

const quiet = createLogger('rmq-admin-interop', { level: 'silent' });
const TOPIC = 'RmqAdminTopic';
const GROUP = 'rmq_admin_cg';
const KEY = 'rmq-admin-key';
const COUNT = 6;

for (const target of adminTargets('rmq-admin')) {
  describe(`rmq admin and mqadmin against ${target.name}`, { timeout: 120_000 }, () => {
    let cluster: Cluster;
    let session: MqadminSession;
    let n: string;
    const official = (namesrvAddr: string, args: readonly string[]) => officialIn(session, namesrvAddr, args);
    const both = async (...args: string[]): Promise<[string, string]> => [
      await ours(n, args),
      await official(n, args),
    ];

    before(async () => {
      ({ cluster, session } = await startClusterAndSession(target));
      n = cluster.namesrvAddr;
    });
    after(async () => {
      await session?.close();
      await cluster?.close();
    });

    test('updateTopic and updateSubGroup print the same results; topicList, topicRoute -l agree', async () => {
      const mine = await ours(n, ['updateTopic', '-c', 'DefaultCluster', '-t', TOPIC, '-r', '4', '-w', '4']);
      const theirs = await official(n, [
        'updateTopic',
        '-c',
        'DefaultCluster',
        '-t',
        `${TOPIC}2`,
        '-r',
        '4',
        '-w',
        '4',
      ]);
      assert.deepEqual(rows(mine, /^create topic to (\S+) success\.$/), [[cluster.brokerAddr]]);
      assert.deepEqual(rows(theirs, /^create topic to (\S+) success\.$/), [[cluster.brokerAddr]]);
      const config = (s: string) =>
        /TopicConfig \[.*\]/.exec(s)?.[0].replace(/topicName=\w+?,/, 'topicName=,');
      assert.equal(config(mine), config(theirs));

      const g1 = await ours(n, ['updateSubGroup', '-c', 'DefaultCluster', '-g', GROUP]);
      const g2 = await official(n, ['updateSubGroup', '-c', 'DefaultCluster', '-g', `${GROUP}2`]);
      const sub = (s: string) =>
        /SubscriptionGroupConfig \[.*\]/.exec(s)?.[0].replace(/groupName=\w+?,/, 'groupName=,');
      assert.ok(sub(g1) !== undefined);
      assert.equal(sub(g1), sub(g2));

      const [l1, l2] = await both('topicList');
      const topics = (s: string) => new Set(rows(s, /^(\S+)$/).map(([t]) => t));
      assert.deepEqual(topics(l1), topics(l2));
      assert.ok(topics(l1).has(TOPIC) && topics(l1).has(`${TOPIC}2`));

      const [r1, r2] = await both('topicRoute', '-t', TOPIC, '-l');
      const routeRows = (s: string) => rows(s, /^(\S+)\s+(\S+)\s+(\{.*\})\s+(\d+)\s+(\d+)\s+(\d+)$/);
      assert.equal(routeRows(r1).length, 1);
      assert.deepEqual(routeRows(r1), routeRows(r2));
      const total = (s: string) => rows(s, /^Total:\s+(\d+)\s+(\d+)\s+(\d+)$/);
      assert.deepEqual(total(r1), [['1', '4', '4']]);
      assert.deepEqual(total(r1), total(r2));
    });

    test('after a producer and a consumer: topicStatus, queryMsgByKey, consumerProgress agree', async () => {
      const producer = createProducer({ producerGroup: 'rmq_admin_pg', namesrvAddr: n, logger: quiet });
      await producer.start();
      try {
        for (let i = 0; i < COUNT; i++) {
          const r = await producer.send({ topic: TOPIC, body: `m${i}`, keys: KEY });
          assert.equal(r.sendStatus, SendStatus.SEND_OK);
        }
      } finally {
        await producer.shutdown();
      }
      const consumer = createPushConsumer({
        consumerGroup: GROUP,
        namesrvAddr: n,
        clientIP: '127.0.0.1',
        logger: quiet,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        persistConsumerOffsetInterval: 1000,
        heartbeatBrokerInterval: 1000,
      });
      let consumed = 0;
      let allConsumed: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        allConsumed = resolve;
      });
      consumer.subscribe(TOPIC, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async (msgs) => {
          consumed += msgs.length;
          if (consumed >= COUNT) allConsumed();
          return 'CONSUME_SUCCESS';
        },
      });
      await consumer.start();
      try {
        await done;
        // Offsets are committed every second: wait until the broker has them all.
        const deadline = Date.now() + 20_000;
        for (;;) {
          // Until the first commit the broker has no offsets at all for the group (exit 1).
          const run = await runOurs(n, ['consumerProgress', '-g', GROUP, '--json']);
          const lag = run.code === 0 ? (JSON.parse(run.out) as { diffTotal: string }).diffTotal : 'unknown';
          if (lag === '0') break;
          assert.ok(Date.now() < deadline, `the group still lags by ${lag}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        await consumer.shutdown();
      }

      const [s1, s2] = await both('topicStatus', '-t', TOPIC);
      const status = (s: string) => sorted(rows(s, /^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+\S+ \S+)?$/));
      assert.equal(status(s1).length, 4);
      assert.equal(
        status(s1).reduce((sum, r) => sum + Number(r[3]), 0),
        COUNT,
      );
      assert.deepEqual(status(s1), status(s2));

      const [k1, k2] = await both('queryMsgByKey', '-t', TOPIC, '-k', KEY);
      const found = (s: string) => sorted(rows(s, /^([0-9A-F]{32})\s+(\d+)\s+(\d+)$/));
      assert.equal(found(k1).length, COUNT);
      assert.deepEqual(found(k1), found(k2));

      const [p1, p2] = await both('consumerProgress', '-g', GROUP);
      const progress = (s: string) =>
        sorted(rows(s, /^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+.*$/));
      assert.ok(progress(p1).some((r) => r[0] === TOPIC));
      assert.deepEqual(progress(p1), progress(p2));
      const diff = (s: string) => /^Diff Total: (-?\d+)$/m.exec(s)?.[1];
      assert.equal(diff(p1), '0');
      assert.equal(diff(p1), diff(p2));
    });

    test('queryMsgByOffset, printMsg, consumeMessage and consumerStatus -i agree', async () => {
      const brokers = JSON.parse(await ours(n, ['clusterList', '--json'])) as Array<{ brokerName: string }>;
      const brokerName = brokers[0]?.brokerName as string;

      // queryMsgByOffset: the same message, line by line (mqadmin then adds its consume track).
      const byOffset = ['queryMsgByOffset', '-t', TOPIC, '-b', brokerName, '-i', '0', '-o', '0'];
      const [q1, q2] = await both(...byOffset);
      assert.equal(messageDetail(q1).fields.get('Queue Offset'), '0');
      assert.equal(messageDetail(q1).fields.get('Topic'), TOPIC);
      assert.deepEqual(messageDetail(q1), messageDetail(q2));

      // printMsg: the same queues, ranges and messages, field by field.
      const [pm1, pm2] = await both('printMsg', '-t', TOPIC);
      assert.equal(messageLines(pm1).length, COUNT);
      assert.deepEqual(messageLines(pm1), messageLines(pm2));
      const ranges = (s: string) =>
        sorted(rows(s, /^minOffset=(\d+), maxOffset=(\d+), (MessageQueue \[.*\])$/));
      assert.equal(ranges(pm1).length, 4);
      assert.deepEqual(ranges(pm1), ranges(pm2));

      // consumeMessage, the whole topic (its by-queue modes: test/integration/cli/admin-pull.test.ts).
      const [cm1, cm2] = await both('consumeMessage', '-t', TOPIC);
      assert.deepEqual(messageLines(cm1), messageLines(pm1));
      assert.deepEqual(messageLines(cm1), messageLines(cm2));
      const finished = (s: string) =>
        sorted(rows(s, /^(MessageQueue \[.*\]) print msg finished\. status=(\w+), offset=(\d+)$/));
      assert.equal(finished(cm1).length, 4);
      assert.deepEqual(finished(cm1), finished(cm2));

      // consumerStatus -i: one of our consumers' running info, relayed by the broker, printed by each.
      const consumer = createPushConsumer({
        consumerGroup: GROUP,
        namesrvAddr: n,
        clientIP: '127.0.0.1',
        logger: quiet,
        heartbeatBrokerInterval: 1000,
      });
      consumer.subscribe(TOPIC, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async () => 'CONSUME_SUCCESS',
      });
      await consumer.start();
      try {
        const clientId = consumer.clientId as string;
        const deadline = Date.now() + 20_000;
        for (;;) {
          const run = await runOurs(n, ['consumerStatus', '-g', GROUP, '-i', clientId, '--json']);
          const held =
            run.code === 0 ? (JSON.parse(run.out) as { mqTable: Array<{ topic: string }> }).mqTable : [];
          if (held.filter((q) => q.topic === TOPIC).length === 4) break;
          assert.ok(Date.now() < deadline, 'the consumer never held the topic');
          await new Promise((r) => setTimeout(r, 200));
        }
        const [cs1, cs2] = await both('consumerStatus', '-g', GROUP, '-i', clientId);
        const status = (s: string) => ({
          properties: keyValues(s.split('\n\n#Consumer Subscription#')[0] ?? '', /^(\S+)\s*: (.*)$/),
          subscriptions: sorted(rows(s, /^\d{3} Topic: (\S+)\s+ClassFilter: (\w+)\s+SubExpression: (.*)$/)),
          offsets: sorted(rows(s, /^(\S+)\s+(\S+)\s+(\d+)\s+(-?\d+)$/)),
          queues: sorted(
            rows(
              s,
              /^(\S+)\s+(\S+)\s+(\d+)\s+ProcessQueueInfo \[commitOffset=(-?\d+), .*cachedMsgCount=(\d+), .*locked=(\w+),/,
            ),
          ),
          rates: sorted(rows(s, /^(\S+)\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+\.\d\d\s+\d+$/)),
        });
        assert.equal(status(cs1).properties.get('PROP_CONSUME_TYPE'), 'CONSUME_PASSIVELY');
        assert.equal(status(cs1).queues.filter((q) => q[0] === TOPIC).length, 4);
        assert.deepEqual(status(cs1), status(cs2));

        // Without -i ours lists the member (mqadmin writes its files into its working directory,
        // which this test does not give it).
        const cwd = process.cwd();
        const dir = mkdtempSync(join(tmpdir(), 'rmq-admin-status-'));
        process.chdir(dir);
        try {
          const all = await ours(n, ['consumerStatus', '-g', GROUP]);
          assert.deepEqual(rows(all, /^(\d+)\s+(\S+)\s+(V\S+)\s+\d+\/\S+$/), [['1', clientId, 'V4_9_8']]);
          assert.match(all, /\n\nSame subscription in the same group of consumer\n\nRebalance OK\n$/);
        } finally {
          process.chdir(cwd);
          rmSync(dir, { recursive: true, force: true });
        }
      } finally {
        await consumer.shutdown();
      }
    });

    test('clusterList, getBrokerConfig and brokerStatus agree', async () => {
      const [c1, c2] = await both('clusterList');
      const brokers = (s: string) => rows(s, /^(\S+)\s+(\S+)\s+(\d+)\s+(\S+:\d+)\s+(V\S+)\s/);
      assert.equal(brokers(c1).length, 1);
      assert.deepEqual(brokers(c1), brokers(c2));

      const [b1, b2] = await both('getBrokerConfig', '-b', cluster.brokerAddr);
      const config = (s: string) => keyValues(s, /^(\S+)\s*= {2}(.*)$/);
      assert.ok(config(b1).size > 50);
      assert.deepEqual(config(b1), config(b2));

      const [st1, st2] = await both('brokerStatus', '-b', cluster.brokerAddr);
      const stats = (s: string) => keyValues(s, /^(\S+?)\s*: (.*)$/);
      assert.deepEqual([...stats(st1).keys()], [...stats(st2).keys()]);
      for (const key of ['brokerVersion', 'brokerVersionDesc', 'msgPutTotalTodayNow', 'commitLogMaxOffset']) {
        assert.equal(stats(st1).get(key), stats(st2).get(key), key);
      }
    });
  });
}
