/**
 * The rest of `rmq admin`'s commands next to the official mqadmin (rocketmq-tools 4.9.8), against
 * our name server and broker and against the official 4.9.8 ones (rmq-admin.test.ts has the first
 * half). Read commands: both print, the parsed facts must agree. Mutating commands: one tool
 * changes the cluster and the other one reads the change, in both directions. mqadmin runs in one
 * JVM per cluster (mqadmin-session.ts), so the suite pays for one JVM start per target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createProducer,
  createPushConsumer,
  type Producer,
  type PushConsumer,
  SendStatus,
} from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import type { MqadminSession } from './mqadmin-session.js';
import {
  adminTargets,
  type Cluster,
  keyValues,
  messageDetail,
  officialIn,
  ours,
  rows,
  runOurs,
  sorted,
  startClusterAndSession,
  until,
} from './rmq-admin-support.js';

const quiet = createLogger('rmq-admin-more-interop', { level: 'silent' });
const CLUSTER = 'DefaultCluster';
const TOPIC = 'RmqMoreTopic';
const GROUP = 'rmq_more_cg';
const PRODUCER_GROUP = 'rmq_more_pg';
const KEY = 'rmq-more-key';
const COUNT = 8;
/** Topics and groups each tool deletes or writes, so one tool's change is checked by the other. */
const MINE = {
  deleted: 'RmqMoreDeletedByOurs',
  group: 'rmq_more_deleted_by_ours',
  kv: 'RmqMoreKvByOurs',
  clone: 'rmq_more_clone_by_ours',
};
const THEIRS = {
  deleted: 'RmqMoreDeletedByMqadmin',
  group: 'rmq_more_deleted_by_mqadmin',
  kv: 'RmqMoreKvByMqadmin',
  clone: 'rmq_more_clone_by_mqadmin',
};
const ORDER_NS = 'ORDER_TOPIC_CONFIG';
/**
 * A broker setting both brokers let anyone change, harmless to the test (default 1000 ms); ours
 * refuses retention keys without ACL (docs/security.md).
 */
const CONFIG_KEY = 'shortPollingTimeMills';
const LAG_TIMEOUT_MS = 30_000;

/** Output lines, trailing blanks and runs of spaces collapsed, blank lines dropped, sorted. */
function lineSet(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd().replace(/\s+/g, ' '))
    .filter((l) => l !== '')
    .sort();
}

/** topicRoute -l's queue rows: cluster, broker, addresses, read, write, perm. */
const routeRows = (s: string) => rows(s, /^(\S+)\s+(\S+)\s+(\{.*\})\s+(\d+)\s+(\d+)\s+(\d+)$/);

/** consumerProgress rows without #LastTime: topic, broker, queue, broker offset, consumer offset, diff. */
const progressRows = (s: string) => sorted(rows(s, /^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+.*$/));

/** The orderTopicConf of a topicRoute without -l: ours prints JSON, mqadmin fastjson's pretty form. */
const orderConf = (s: string) => /"orderTopicConf"\s*:\s*"([^"]*)"/.exec(s)?.[1];

/** resetOffsetByTime's table rows (either layout): broker name and the numbers after it. */
const resetRows = (s: string) =>
  sorted(rows(s, /^(?!#)(\S+)((?:\s+-?\d+)+)$/).map(([b, n]) => [b ?? '', ...(n ?? '').trim().split(/\s+/)]));

for (const target of adminTargets('rmq-admin-more')) {
  describe(`more rmq admin commands next to mqadmin against ${target.name}`, { timeout: 120_000 }, () => {
    let cluster: Cluster;
    let session: MqadminSession;
    let n: string;
    let producer: Producer;
    let consumer: PushConsumer;
    const sent: Array<{ msgId: string; offsetMsgId: string }> = [];
    const mine = (...args: string[]) => ours(n, args);
    const theirs = (...args: string[]) => officialIn(session, n, args);
    const both = async (...args: string[]): Promise<[string, string]> => [
      await mine(...args),
      await theirs(...args),
    ];
    /** The group's lag as our consumerProgress --json reads it ('unknown' before its first commit). */
    const lagOf = async (group: string) => {
      const r = await runOurs(n, ['consumerProgress', '-g', group, '--json']);
      return r.code === 0 ? (JSON.parse(r.out) as { diffTotal: string }).diffTotal : 'unknown';
    };

    before(async () => {
      ({ cluster, session } = await startClusterAndSession(target));
      n = cluster.namesrvAddr;
      // Routes carry the ORDER_TOPIC_CONFIG namespace of the KV config only with orderMessageEnable
      // (off by default, on both name servers): that is how each tool reads the other's KV writes.
      const enabled = await theirs('updateNamesrvConfig', '-k', 'orderMessageEnable', '-v', 'true');
      assert.match(enabled, /^orderMessageEnable : true$/m);

      await mine('updateTopic', '-c', CLUSTER, '-t', TOPIC, '-r', '4', '-w', '4');
      for (const topic of [MINE.deleted, THEIRS.deleted, MINE.kv, THEIRS.kv]) {
        await mine('updateTopic', '-c', CLUSTER, '-t', topic, '-r', '1', '-w', '1');
      }
      // Groups with the retry topics a consumer would have made, so a deletion by cluster has
      // topics to delete; clone destinations need theirs for consumerProgress to find their brokers.
      for (const group of [MINE.group, THEIRS.group])
        await mine('updateSubGroup', '-c', CLUSTER, '-g', group);
      for (const group of [MINE.group, THEIRS.group, MINE.clone, THEIRS.clone]) {
        await mine('updateTopic', '-c', CLUSTER, '-t', `%RETRY%${group}`, '-r', '1', '-w', '1');
      }

      // A producer and a consumer stay online for the connection and consume-stats commands.
      producer = createProducer({ producerGroup: PRODUCER_GROUP, namesrvAddr: n, logger: quiet });
      await producer.start();
      for (let i = 0; i < COUNT; i++) {
        const r = await producer.send({ topic: TOPIC, body: `m${i}`, keys: KEY, tags: 'TagA' });
        assert.equal(r.sendStatus, SendStatus.SEND_OK);
        sent.push({ msgId: r.msgId, offsetMsgId: r.offsetMsgId });
      }
      consumer = createPushConsumer({
        consumerGroup: GROUP,
        namesrvAddr: n,
        clientIP: '127.0.0.1',
        logger: quiet,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        persistConsumerOffsetInterval: 1000,
        heartbeatBrokerInterval: 1000,
      });
      consumer.subscribe(TOPIC, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async () => 'CONSUME_SUCCESS',
      });
      await consumer.start();
      await until(
        async () => ((await lagOf(GROUP)) === '0' ? true : undefined),
        'the group consumed all',
        LAG_TIMEOUT_MS,
      );
    });

    after(async () => {
      await consumer?.shutdown();
      await producer?.shutdown();
      await session?.close();
      await cluster?.close();
    });

    test('read commands print the same facts', async () => {
      const [tc1, tc2] = await both('topicClusterList', '-t', TOPIC);
      assert.deepEqual(lineSet(tc1), [CLUSTER]);
      assert.deepEqual(lineSet(tc1), lineSet(tc2));

      const [cc1, cc2] = await both('consumerConnection', '-g', GROUP);
      const connections = (s: string) => rows(s, /^(\S+@\S+)\s+(\S+:\d+)\s+(\w+)\s+(V\S+)$/);
      assert.deepEqual(
        connections(cc1).map((r) => r[0]),
        [consumer.clientId],
      );
      assert.match(cc1, new RegExp(`^${TOPIC}\\s+\\*$`, 'm'));
      assert.deepEqual(lineSet(cc1), lineSet(cc2));

      const [pc1, pc2] = await both('producerConnection', '-g', PRODUCER_GROUP, '-t', TOPIC);
      const producers = (s: string) => rows(s, /^(\d{4})\s+(\S+)\s+(\S+:\d+)\s+(\w+)\s+(V\S+)$/);
      assert.deepEqual(
        producers(pc1).map((r) => r[1]),
        [producer.clientId],
      );
      assert.deepEqual(producers(pc1), producers(pc2));

      const [bc1, bc2] = await both('brokerConsumeStats', '-b', cluster.brokerAddr);
      const consumeRows = (s: string) =>
        sorted(rows(s, /^(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\S+ \S+)$/));
      assert.equal(consumeRows(bc1).filter((r) => r[0] === TOPIC && r[1] === GROUP).length, 4);
      assert.deepEqual(consumeRows(bc1), consumeRows(bc2));
      const diffTotal = (s: string) => /^Diff Total: (-?\d+)$/m.exec(s)?.[1];
      assert.equal(diffTotal(bc1), '0');
      assert.equal(diffTotal(bc1), diffTotal(bc2));

      // The message lookups: the same message block; mqadmin then prints its consume track, which
      // ours leaves out (docs/operations.md, "Where we differ").
      const first = sent[0] as { msgId: string; offsetMsgId: string };
      const [id1, id2] = await both('queryMsgById', '-i', first.offsetMsgId);
      assert.equal(messageDetail(id1).fields.get('Topic'), TOPIC);
      assert.equal(messageDetail(id1).fields.get('Keys'), `[${KEY}]`);
      assert.deepEqual(messageDetail(id1), messageDetail(id2));
      assert.doesNotMatch(id1.trimEnd(), /\n\n/);
      assert.match(id2.trimEnd(), /\n\n\S/);
      const [uk1, uk2] = await both('queryMsgByUniqueKey', '-i', first.msgId, '-t', TOPIC);
      assert.equal(
        messageDetail(uk1).fields.get('Queue Offset'),
        messageDetail(id1).fields.get('Queue Offset'),
      );
      assert.deepEqual(messageDetail(uk1), messageDetail(uk2));

      const queueId = messageDetail(id1).fields.get('Queue ID') as string;
      const [cq1, cq2] = await both('queryCq', '-t', TOPIC, '-q', queueId, '-i', '0');
      assert.match(cq1, /^idx: 0$/m);
      assert.deepEqual(lineSet(cq1), lineSet(cq2));

      // statsAll's 24-hour counts come from the brokers' sampled stats, which may move on between
      // the two runs: mqadmin's must match ours before or after it. TPS columns are left out.
      const stats = (s: string) =>
        sorted(rows(s, /^(\S+)\s+(\S+)\s+(\d+)\s+\d+\.\d\d\s+\d+\.\d\d\s+(\d+)\s+(\d+)$/));
      const [sa1, sa2] = await both('statsAll', '-t', TOPIC);
      const sa3 = await mine('statsAll', '-t', TOPIC);
      assert.deepEqual(
        stats(sa1).map((r) => r.slice(0, 3)),
        [[TOPIC, GROUP, '0']],
      );
      assert.ok(
        [stats(sa1), stats(sa3)].some((r) => JSON.stringify(r) === JSON.stringify(stats(sa2))),
        `statsAll\nours:\n${sa1}\nmqadmin:\n${sa2}\nours again:\n${sa3}`,
      );

      const [nc1, nc2] = await both('getNamesrvConfig');
      const namesrvConfig = (s: string) => keyValues(s, /^(\S+)\s*= {2}(.*)$/);
      assert.ok(namesrvConfig(nc1).size > 5);
      assert.equal(namesrvConfig(nc1).get('orderMessageEnable'), 'true', 'mqadmin updateNamesrvConfig');
      assert.deepEqual(namesrvConfig(nc1), namesrvConfig(nc2));
      assert.deepEqual(rows(nc1, /^=+(\S+?)=+$/), [[n]]);
      assert.deepEqual(rows(nc1, /^=+(\S+?)=+$/), rows(nc2, /^=+(\S+?)=+$/));

      for (const args of [
        ['cleanExpiredCQ', '-b', cluster.brokerAddr],
        ['cleanExpiredCQ', '-c', CLUSTER],
        ['cleanUnusedTopic', '-b', cluster.brokerAddr],
        ['cleanUnusedTopic', '-c', CLUSTER],
      ]) {
        const [c1, c2] = await both(...args);
        assert.equal(c1, 'success', args.join(' '));
        assert.equal(c2, c1, args.join(' '));
      }
    });

    test('sendMessage: each tool finds the message the other one sent', async () => {
      const sendRow = (s: string) => rows(s, /^(\S+)\s+(\d+)\s+(SEND_OK)\s+([0-9A-F]{32,})$/)[0];
      const sm1 = await mine('sendMessage', '-t', TOPIC, '-p', 'from rmq', '-k', 'rmq-key', '-c', 'TagR');
      const sm2 = await theirs(
        'sendMessage',
        '-t',
        TOPIC,
        '-p',
        'from mqadmin',
        '-k',
        'mqadmin-key',
        '-c',
        'TagM',
      );
      assert.equal(sendRow(sm1)?.[0], cluster.brokerName);
      assert.equal(sendRow(sm2)?.[0], cluster.brokerName);
      assert.deepEqual(lineSet(sm2)[0], lineSet(sm1)[0], 'the header line');
      const found1 = messageDetail(
        await theirs('queryMsgByUniqueKey', '-i', sendRow(sm1)?.[3] as string, '-t', TOPIC),
      );
      assert.deepEqual([found1.fields.get('Keys'), found1.fields.get('Tags')], ['[rmq-key]', '[TagR]']);
      assert.equal(found1.fields.get('Queue ID'), sendRow(sm1)?.[1]);
      const found2 = messageDetail(
        await mine('queryMsgByUniqueKey', '-i', sendRow(sm2)?.[3] as string, '-t', TOPIC),
      );
      assert.deepEqual([found2.fields.get('Keys'), found2.fields.get('Tags')], ['[mqadmin-key]', '[TagM]']);
      assert.equal(found2.fields.get('Queue ID'), sendRow(sm2)?.[1]);
      // The group's offsets settle before the next test copies and resets them.
      await until(
        async () => ((await lagOf(GROUP)) === '0' ? true : undefined),
        'the group consumed the sends',
        LAG_TIMEOUT_MS,
      );
    });

    // Before the KV writes below: a broker that learns of order topics from the name server changes
    // its topic data version, and its next registration would give the wiped queues write back.
    test('wipeWritePerm and addWritePerm: each tool sees what the other did', async () => {
      const perm = async (read: (...a: string[]) => Promise<string>) =>
        routeRows(await read('topicRoute', '-t', TOPIC, '-l')).map((r) => r[5]);
      const permLine = (s: string) =>
        rows(s, /^(wipe|add) write perm of broker\[(\S+)\] in name server\[(\S+)\] OK, (\d+)$/);

      const w2 = await theirs('wipeWritePerm', '-b', cluster.brokerName);
      assert.deepEqual(await perm(mine), ['4']);
      const a1 = await mine('addWritePerm', '-b', cluster.brokerName);
      assert.deepEqual(await perm(theirs), ['6']);
      const w1 = await mine('wipeWritePerm', '-b', cluster.brokerName);
      assert.deepEqual(await perm(theirs), ['4']);
      const a2 = await theirs('addWritePerm', '-b', cluster.brokerName);
      assert.deepEqual(await perm(mine), ['6']);

      const [wiped] = permLine(w1);
      assert.deepEqual(wiped?.slice(0, 3), ['wipe', cluster.brokerName, n]);
      assert.ok(Number(wiped?.[3]) > 0);
      assert.deepEqual(permLine(w1), permLine(w2));
      assert.deepEqual(permLine(a1), permLine(a2));
      assert.equal(permLine(a1)[0]?.[3], wiped?.[3], 'as many topics added as wiped');
    });

    test('what one tool changes, the other one reads', async () => {
      const addr = cluster.brokerAddr;
      /** Output lines with the name a tool was given replaced, to compare two runs on different names. */
      const deleteLines = (s: string, name: string) => lineSet(s.replaceAll(name, '<name>'));
      const dt1 = await mine('deleteTopic', '-t', MINE.deleted, '-c', CLUSTER);
      const dg1 = await mine('deleteSubGroup', '-c', CLUSTER, '-g', MINE.group);
      const bc1 = await mine('updateBrokerConfig', '-b', addr, '-k', CONFIG_KEY, '-v', '71');
      const kv1 = await mine(
        'updateKvConfig',
        '-s',
        ORDER_NS,
        '-k',
        MINE.kv,
        '-v',
        `${cluster.brokerName}:1`,
      );
      const cg1 = await mine('cloneGroupOffset', '-s', GROUP, '-d', MINE.clone, '-t', TOPIC);

      // mqadmin reads what ours did.
      const topics = (s: string) => new Set(lineSet(s));
      const afterOurs = topics(await theirs('topicList'));
      assert.ok(!afterOurs.has(MINE.deleted) && afterOurs.has(THEIRS.deleted));
      assert.ok(!afterOurs.has(`%RETRY%${MINE.group}`) && afterOurs.has(`%RETRY%${THEIRS.group}`));
      assert.equal(await theirs('getConsumerConfig', '-g', MINE.group), '');
      assert.match(
        await theirs('getConsumerConfig', '-g', THEIRS.group),
        new RegExp(`^groupName\\s+= {2}${THEIRS.group}$`, 'm'),
      );
      const config = (s: string) => keyValues(s, /^(\S+)\s*= {2}(.*)$/);
      assert.equal(config(await theirs('getBrokerConfig', '-b', addr)).get(CONFIG_KEY), '71');
      assert.equal(orderConf(await theirs('topicRoute', '-t', MINE.kv)), `${cluster.brokerName}:1`);
      const source = progressRows(await theirs('consumerProgress', '-g', GROUP));
      assert.equal(source.filter((r) => r[0] === TOPIC).length, 4);
      assert.deepEqual(progressRows(await theirs('consumerProgress', '-g', MINE.clone)), source);

      // mqadmin does the same; its lines match ours.
      const dt2 = await theirs('deleteTopic', '-t', THEIRS.deleted, '-c', CLUSTER);
      assert.deepEqual(deleteLines(dt1, MINE.deleted), deleteLines(dt2, THEIRS.deleted));
      const dg2 = await theirs('deleteSubGroup', '-c', CLUSTER, '-g', THEIRS.group);
      assert.deepEqual(deleteLines(dg1, MINE.group), deleteLines(dg2, THEIRS.group));
      const bc2 = await theirs('updateBrokerConfig', '-b', addr, '-k', CONFIG_KEY, '-v', '70');
      assert.deepEqual(lineSet(bc1), [`update broker config success, ${addr}`]);
      assert.deepEqual(lineSet(bc2), lineSet(bc1));
      const kv2 = await theirs(
        'updateKvConfig',
        '-s',
        ORDER_NS,
        '-k',
        THEIRS.kv,
        '-v',
        `${cluster.brokerName}:1`,
      );
      assert.deepEqual(lineSet(kv2), lineSet(kv1));
      const kd2 = await theirs('deleteKvConfig', '-s', ORDER_NS, '-k', MINE.kv);
      const cg2 = await theirs('cloneGroupOffset', '-s', GROUP, '-d', THEIRS.clone, '-t', TOPIC);
      assert.equal(cg2, cg1.replace(MINE.clone, THEIRS.clone));
      // The clone's group is not online: mqadmin resets it itself (its fallback table).
      const rs2 = await theirs('resetOffsetByTime', '-g', MINE.clone, '-t', TOPIC, '-s', '0');

      // Ours reads what mqadmin did.
      const afterTheirs = topics(await mine('topicList'));
      assert.ok(!afterTheirs.has(THEIRS.deleted) && !afterTheirs.has(`%RETRY%${THEIRS.group}`));
      assert.equal(config(await mine('getBrokerConfig', '-b', addr)).get(CONFIG_KEY), '70');
      assert.equal(orderConf(await mine('topicRoute', '-t', THEIRS.kv)), `${cluster.brokerName}:1`);
      assert.equal(orderConf(await mine('topicRoute', '-t', MINE.kv)), undefined);
      assert.deepEqual(progressRows(await mine('consumerProgress', '-g', THEIRS.clone)), source);
      assert.deepEqual(
        progressRows(await mine('consumerProgress', '-g', MINE.clone))
          .filter((r) => r[0] === TOPIC)
          .map((r) => r[4]),
        ['0', '0', '0', '0'],
      );
      // Ours resets the other clone the same way: the same table.
      const rs1 = await mine('resetOffsetByTime', '-g', THEIRS.clone, '-t', TOPIC, '-s', '0');
      assert.equal(resetRows(rs1).length, 4);
      assert.deepEqual(resetRows(rs1), resetRows(rs2));
      assert.deepEqual(deleteLines(rs1, THEIRS.clone), deleteLines(rs2, MINE.clone), 'the whole output');
      const kd1 = await mine('deleteKvConfig', '-s', ORDER_NS, '-k', THEIRS.kv);
      assert.deepEqual(lineSet(kd1), ['delete kv config from namespace success.']);
      assert.deepEqual(lineSet(kd2), lineSet(kd1));
      assert.equal(orderConf(await theirs('topicRoute', '-t', THEIRS.kv)), undefined);

      // An online group is reset through the broker and its consumer: to the end of each queue.
      const [ro1, ro2] = await both('resetOffsetByTime', '-g', GROUP, '-t', TOPIC, '-s', 'now');
      assert.equal(resetRows(ro1).length, 4);
      assert.deepEqual(resetRows(ro1), resetRows(ro2));
      assert.deepEqual(lineSet(ro1), lineSet(ro2), 'the whole output');
    });
  });
}
