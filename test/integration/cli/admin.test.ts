/**
 * `rmq admin` against a real in-process name server and broker, through the CLI's main function:
 * each command does what mqadmin's does, prints its layout, and --json gives the same facts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAdmin } from '../../../src/admin/admin.js';
import { buildUpdateAndCreateTopicRequest } from '../../../src/admin/requests/update-and-create-topic.js';
import { adminFromArgs } from '../../../src/cli/admin/admin-command.js';
import { MQClientError } from '../../../src/client/errors.js';
import { createProducer, SendStatus } from '../../../src/client/index.js';
import { TopicName } from '../../../src/common/constants.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import type { Embedded } from '../../../src/embedded/embedded.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/remoting-client.js';
import { json, ok, quiet, rmq, startAdminCluster, startConsumer, unique, until } from './admin-support.js';

const LIMIT = { timeout: 60_000 };
let embedded: Embedded;
let n: string[];
let brokerName: string;

before(async () => {
  ({ embedded, n, brokerName } = await startAdminCluster());
});
after(() => embedded.close());

/** `rmq admin updateTopic -c DefaultCluster -t <topic> <flags>`: its stdout. */
const updateTopicInCluster = (topic: string, ...flags: string[]) =>
  ok('admin', 'updateTopic', ...n, '-c', 'DefaultCluster', '-t', topic, ...flags);

test('updateTopic, topicList, topicRoute, topicStatus, topicClusterList, deleteTopic', LIMIT, async () => {
  const topic = unique('AdminTopic');
  const created = await updateTopicInCluster(topic, '-r', '4', '-w', '4');
  assert.equal(
    created,
    `create topic to ${embedded.brokerAddr} success.\n` +
      `TopicConfig [topicName=${topic}, readQueueNums=4, writeQueueNums=4, perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]`,
  );
  // Also as `rmq <command>`, without `admin`.
  assert.ok((await ok('topicList', ...n)).split('\n').includes(topic));
  assert.ok((await json<{ topicList: string[] }>('topicList', ...n)).topicList.includes(topic));

  const route = await json<{
    queueDatas: Array<{ brokerName: string; readQueueNums: number; perm: number }>;
  }>('admin', 'topicRoute', ...n, '-t', topic);
  assert.deepEqual(
    route.queueDatas.map((q) => [q.brokerName, q.readQueueNums, q.perm]),
    [[brokerName, 4, 6]],
  );
  const list = (await ok('admin', 'topicRoute', ...n, '-t', topic, '-l')).split('\n');
  assert.match(list[0] as string, /^#ClusterName {33} #BrokerName/);
  assert.match(
    list[1] as string,
    new RegExp(`^DefaultCluster +${brokerName} +\\{0=${embedded.brokerAddr}\\} +4 +4 +6`),
  );
  assert.match(list[3] as string, /^Total: +1 +4 +4/);

  const status = (await ok('admin', 'topicStatus', ...n, '-t', topic)).trimEnd().split('\n');
  assert.equal(status.length, 5);
  assert.match(status[1] as string, new RegExp(`^${brokerName} +0 +0 +0 +$`));
  assert.equal((await json<unknown[]>('admin', 'topicStatus', ...n, '-t', topic)).length, 4);
  assert.equal(await ok('admin', 'topicClusterList', ...n, '-t', topic), 'DefaultCluster\n');

  assert.equal(
    await ok('admin', 'deleteTopic', ...n, '-c', 'DefaultCluster', '-t', topic),
    `delete topic [${topic}] from cluster [DefaultCluster] success.\ndelete topic [${topic}] from NameServer success.\n`,
  );
  assert.ok(!(await ok('topicList', ...n)).split('\n').includes(topic));
});

test(
  'updateTopic refuses an unknown cluster and a perm outside 2/4/6; the admin API and the broker refuse perm 9',
  LIMIT,
  async () => {
    const topic = unique('AdminBad');
    const noCluster = await rmq('admin', 'updateTopic', ...n, '-c', 'NoSuchCluster', '-t', topic);
    assert.equal(noCluster.code, 1);
    assert.equal(noCluster.out, '');
    assert.match(
      noCluster.err,
      /updateTopic: no master broker in cluster \[NoSuchCluster\]: make sure the specified clusterName exists/,
    );
    const badPerm = await rmq('admin', 'updateTopic', ...n, '-c', 'DefaultCluster', '-t', topic, '-p', '9');
    assert.equal(badPerm.code, 2);
    assert.match(badPerm.err, /-p must be 2 \(W\), 4 \(R\) or 6 \(RW\), got 9/);

    const admin = createAdmin({ namesrvAddr: embedded.namesrvAddr, logger: quiet });
    await admin.start();
    try {
      await assert.rejects(
        admin.createAndUpdateTopicConfig(embedded.brokerAddr, { topicName: topic, perm: 9 }),
        (e: unknown) =>
          e instanceof MQClientError &&
          e.responseCode === ResponseCode.NO_PERMISSION &&
          /topicPermission value: 9 is invalid\./.test(e.message),
      );
    } finally {
      await admin.shutdown();
    }
    // A peer that skips the admin's check: the broker answers the same.
    const client = new RemotingClient({}, { logger: quiet });
    try {
      const request = buildUpdateAndCreateTopicRequest(
        createTopicConfig(topic, { perm: 9 }),
        TopicName.AUTO_CREATE_TOPIC_KEY_TOPIC,
      );
      const reply = await client.invoke(embedded.brokerAddr, request, { timeoutMs: 5000 });
      assert.equal(reply.code, ResponseCode.NO_PERMISSION);
      assert.equal(reply.remark, 'topicPermission value: 9 is invalid.');
    } finally {
      await client.close();
    }
    assert.ok(!(await ok('topicList', ...n)).split('\n').includes(topic), 'nothing was created');
  },
);

test(
  'messages: topicStatus offsets, queryMsgByKey, queryMsgById, queryMsgByUniqueKey, producerConnection',
  LIMIT,
  async () => {
    const topic = unique('AdminMsg');
    const group = unique('AdminProducer');
    await ok('admin', 'updateTopic', ...n, '-b', embedded.brokerAddr, '-t', topic, '-r', '2', '-w', '2');
    const producer = createProducer({
      producerGroup: group,
      namesrvAddr: embedded.namesrvAddr,
      logger: quiet,
    });
    await producer.start();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await producer.send({ topic, body: `body-${i}`, keys: 'order-42', tags: 'TagA' });
        assert.equal(r.sendStatus, SendStatus.SEND_OK);
        ids.push(r.msgId);
      }
      const stats = await json<Array<{ maxOffset: string }>>('admin', 'topicStatus', ...n, '-t', topic);
      assert.equal(
        stats.reduce((s, q) => s + Number(q.maxOffset), 0),
        3,
      );

      await until('the index to find the key', async () => {
        const found = await json<Array<{ msgId: string }>>(
          'admin',
          'queryMsgByKey',
          ...n,
          '-t',
          topic,
          '-k',
          'order-42',
        );
        return found.length === 3;
      });
      const byKey = (await ok('admin', 'queryMsgByKey', ...n, '-t', topic, '-k', 'order-42'))
        .trimEnd()
        .split('\n');
      assert.match(byKey[0] as string, /^#Message ID {40}#QID {34}#Offset$/);
      assert.deepEqual(
        byKey
          .slice(1)
          .map((l) => l.split(/ +/)[0])
          .sort(),
        [...ids].sort(),
      );

      const byUniq = await ok('admin', 'queryMsgByUniqueKey', ...n, '-t', topic, '-i', ids[0] as string);
      assert.match(byUniq, /^Topic: {15}\S+\nTags: {16}\[TagA\]\nKeys: {16}\[order-42\]\n/);
      const facts = await json<{ offsetMsgId: string; body: undefined; bodyPath: string }>(
        'admin',
        'queryMsgByUniqueKey',
        ...n,
        '-t',
        topic,
        '-i',
        ids[0] as string,
      );
      const byId = await ok('admin', 'queryMsgById', ...n, '-i', facts.offsetMsgId);
      assert.match(byId, new RegExp(`^OffsetID: {12}${facts.offsetMsgId}\nTopic: {15}${topic}\n`));
      assert.match(byId, /Message Body Path: +\S+/);

      // The broker learns of the producer group from its heartbeat, sent every second here.
      await until(
        'the producer heartbeat',
        async () => (await rmq('admin', 'producerConnection', ...n, '-g', group, '-t', topic)).code === 0,
      );
      const sent = await rmq(
        'sendMessage',
        ...n,
        '-t',
        topic,
        '-p',
        'from the cli',
        '-k',
        'cli-key',
        '-c',
        'TagB',
        '-b',
        brokerName,
        '-i',
        '1',
      );
      assert.equal(sent.code, 0, sent.err);
      assert.equal(sent.err, '');
      const [head, row] = sent.out.split('\n');
      assert.equal(head, '#Broker Name                      #QID  #Send Result            #MsgId');
      assert.match(row as string, new RegExp(`^${brokerName} +1 {5}SEND_OK +[0-9A-F]{32}$`));
      const statsRows = await json<Array<{ topic: string; group: string; inMsg24Hour: string }>>(
        'admin',
        'statsAll',
        ...n,
        '-t',
        topic,
      );
      assert.deepEqual(
        statsRows.map((r) => [r.topic, r.group]),
        [[topic, '']],
      );
      // The 24-hour counts come from the broker's per-minute samples, so a fresh topic may show 0.
      const statsText = (await ok('admin', 'statsAll', ...n, '-t', topic)).split('\n');
      assert.match(statsText[0] as string, /^#Topic {58} {2}#Consumer Group {50}#Accumulation {6}#InTPS/);
      assert.match(statsText[1] as string, new RegExp(`^${topic} +0 +\\d+\\.\\d{2} +\\d+ +NO_CONSUMER$`));
      const cq = await ok('admin', 'queryCq', ...n, '-t', topic, '-q', '0', '-i', '0');
      assert.match(cq, /^Queue data: \nmax: \d+, min: 0\n=+\n/);
      const cqJson = await json<{ queueData: Array<{ physicOffset: string; physicSize: number }> }>(
        'admin',
        'queryCq',
        ...n,
        '-t',
        topic,
        '-q',
        '0',
        '-i',
        '0',
        '-c',
        '2',
      );
      assert.ok(cqJson.queueData.length >= 1 && cqJson.queueData.every((d) => d.physicSize > 0));
      const producers = await ok('admin', 'producerConnection', ...n, '-g', group, '-t', topic);
      assert.match(producers, /^0001 {2}\S+@\S+ +127\.0\.0\.1:\d+ +NODE|^0001 {2}\S+ +\S+ +\S+ +V\d/);
    } finally {
      await producer.shutdown();
    }
  },
);

test('groups: updateSubGroup, consumerConnection, consumerProgress, deleteSubGroup', LIMIT, async () => {
  const topic = unique('AdminGroupTopic');
  const group = unique('AdminGroup');
  await updateTopicInCluster(topic, '-r', '2', '-w', '2');
  const made = await ok('admin', 'updateSubGroup', ...n, '-c', 'DefaultCluster', '-g', group, '-r', '3');
  assert.match(
    made,
    new RegExp(
      `^create subscription group to ${embedded.brokerAddr} success\\.\nSubscriptionGroupConfig \\[groupName=${group}, consumeEnable=true, .*retryMaxTimes=3,`,
    ),
  );

  const producer = createProducer({
    producerGroup: unique('pg'),
    namesrvAddr: embedded.namesrvAddr,
    logger: quiet,
  });
  await producer.start();
  for (let i = 0; i < 4; i++) await producer.send({ topic, body: `m${i}` });
  await producer.shutdown();

  const consumer = await startConsumer(embedded.namesrvAddr, group, topic, {
    rebalanceWaitInterval: 1000,
    heartbeatBrokerInterval: 1000,
    persistConsumerOffsetInterval: 1000,
  });
  try {
    await until('the group to catch up', async () => {
      const run = await rmq('admin', 'consumerProgress', ...n, '-g', group, '--json');
      if (run.code !== 0) return false;
      const p = JSON.parse(run.out) as { queues: Array<{ topic: string }>; diffTotal: string };
      return p.diffTotal === '0' && p.queues.some((q) => q.topic === topic);
    });
    const progress = (await ok('admin', 'consumerProgress', ...n, '-g', group)).split('\n');
    assert.match(progress[0] as string, /^#Topic {58} {2}#Broker Name {20} {2}#QID {2}#Broker Offset/);
    assert.ok(progress.includes('Diff Total: 0'));
    const withIp = await ok('admin', 'consumerProgress', ...n, '-g', group, '-s', 'true');
    assert.match(withIp, new RegExp(`${topic} +${brokerName} +\\d +\\d+ +\\d+ +127\\.0\\.0\\.1 +0 `));

    const conn = await ok('admin', 'consumerConnection', ...n, '-g', group);
    assert.match(conn, /^#ClientId {28}#ClientAddr {12}#Language {2}#Version\n127\.0\.0\.1@/);
    assert.match(conn, new RegExp(`\\n${topic} +\\*\\n`));
    assert.match(
      conn,
      /ConsumeType: CONSUME_PASSIVELY\nMessageModel: CLUSTERING\nConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET\n$/,
    );

    const all = await json<Array<{ group: string; count: number; type: string; model: string }>>(
      'admin',
      'consumerProgress',
      ...n,
    );
    const mine = all.find((g) => g.group === group);
    assert.deepEqual(mine && [mine.count, mine.type, mine.model], [1, 'PUSH', 'CLUSTERING']);

    const inBroker = await json<{ rows: Array<{ group: string; topic: string }>; totalDiff: string }>(
      'admin',
      'brokerConsumeStats',
      ...n,
      '-b',
      embedded.brokerAddr,
    );
    assert.ok(inBroker.rows.some((r) => r.group === group && r.topic === topic));
    assert.match(
      await ok('admin', 'brokerConsumeStats', ...n, '-b', embedded.brokerAddr),
      /\nDiff Total: \d+\n$/,
    );
  } finally {
    await consumer.shutdown();
  }

  // The group is offline now: resetOffsetByTime resets it the admin's own way, back to the start.
  const reset = await ok('admin', 'resetOffsetByTime', ...n, '-g', group, '-t', topic, '-s', '0');
  assert.match(
    reset,
    /^rollback consumer offset by specified consumerGroup\[.*\], timestamp\(long\)\[0\]\n#brokerName/,
  );
  const progress = async (g: string) =>
    json<{ diffTotal: string }>('admin', 'consumerProgress', ...n, '-g', g);
  assert.equal((await progress(group)).diffTotal, '4');

  const copy = unique('AdminCopy');
  await updateTopicInCluster(`%RETRY%${copy}`, '-r', '1', '-w', '1');
  assert.equal(
    await ok('admin', 'cloneGroupOffset', ...n, '-s', group, '-d', copy, '-t', topic),
    `clone group offset success. srcGroup[${group}], destGroup=[${copy}], topic[${topic}]`,
  );
  assert.equal((await progress(copy)).diffTotal, '4');

  assert.equal(await ok('admin', 'cleanExpiredCQ', ...n, '-b', embedded.brokerAddr), 'success');
  assert.equal(await ok('admin', 'cleanUnusedTopic', ...n, '-c', 'DefaultCluster'), 'success');

  const deleted = await ok('admin', 'deleteSubGroup', ...n, '-b', embedded.brokerAddr, '-g', group);
  assert.equal(
    deleted,
    `delete subscription group [${group}] from broker [${embedded.brokerAddr}] success.\n`,
  );
  const admin = createAdmin({ namesrvAddr: embedded.namesrvAddr, logger: quiet });
  await admin.start();
  try {
    assert.equal(await admin.examineSubscriptionGroupConfig(embedded.brokerAddr, group), undefined);
  } finally {
    await admin.shutdown();
  }
});

test(
  'brokers and name servers: clusterList, brokerStatus, broker and name server config, KV, write perm',
  LIMIT,
  async () => {
    const cluster = (await ok('admin', 'clusterList', ...n)).split('\n');
    assert.match(
      cluster[0] as string,
      /^#Cluster Name {5}#Broker Name {12}#BID {2}#Addr {18}#Version {16}#InTPS\(LOAD\)/,
    );
    assert.match(
      cluster[1] as string,
      new RegExp(`^DefaultCluster +${brokerName} +0 +${embedded.brokerAddr} +V4_9_8 `),
    );
    assert.match(
      await ok('admin', 'clusterList', ...n, '-m'),
      /^#Cluster Name {5}#Broker Name {23}#InTotalYest {2}#OutTotalYest/,
    );

    const status = await ok('admin', 'brokerStatus', ...n, '-b', embedded.brokerAddr);
    assert.match(status, /^brokerVersionDesc {15}: V4_9_8$/m);
    const byCluster = await json<Record<string, Record<string, string>>>(
      'admin',
      'brokerStatus',
      ...n,
      '-c',
      'DefaultCluster',
    );
    assert.equal(byCluster[embedded.brokerAddr]?.brokerVersionDesc, 'V4_9_8');

    assert.equal(
      (await json<Record<string, string>>('admin', 'getBrokerConfig', ...n, '-b', embedded.brokerAddr))
        .brokerName,
      brokerName,
    );
    const cfg = await ok('admin', 'getBrokerConfig', ...n, '-c', 'DefaultCluster');
    assert.match(cfg, new RegExp(`^============Master: ${embedded.brokerAddr}============\n`));
    assert.match(cfg, new RegExp(`^brokerName {40}=  ${brokerName}$`, 'm'));
    assert.equal(
      await ok(
        'admin',
        'updateBrokerConfig',
        ...n,
        '-b',
        embedded.brokerAddr,
        '-k',
        'shortPollingTimeMills',
        '-v',
        '1001',
      ),
      `update broker config success, ${embedded.brokerAddr}\n`,
    );
    assert.equal(
      (await json<Record<string, string>>('admin', 'getBrokerConfig', ...n, '-b', embedded.brokerAddr))
        .shortPollingTimeMills,
      '1001',
    );
    // A key that can delete stored messages is refused without ACL, with the reason.
    const retention = await rmq(
      'admin',
      'updateBrokerConfig',
      ...n,
      '-b',
      embedded.brokerAddr,
      '-k',
      'fileReservedTime',
      '-v',
      '0',
    );
    assert.notEqual(retention.code, 0);
    assert.match(retention.err, /Not updatable remotely without ACL .*fileReservedTime/);

    const ns = await json<Record<string, Record<string, string>>>('admin', 'getNamesrvConfig', ...n);
    assert.deepEqual(Object.keys(ns), [embedded.namesrvAddr]);
    assert.match(
      await ok('admin', 'getNamesrvConfig', ...n),
      new RegExp(`^============${embedded.namesrvAddr}============\n`),
    );

    const admin = createAdmin({ namesrvAddr: embedded.namesrvAddr, logger: quiet });
    await admin.start();
    try {
      assert.equal(
        await ok('admin', 'updateKvConfig', ...n, '-s', 'ADMIN_TEST', '-k', 'k1', '-v', 'v1'),
        'create or update kv config to namespace success.\n',
      );
      assert.equal(await admin.getKVConfig('ADMIN_TEST', 'k1'), 'v1');
      assert.equal(
        await ok('admin', 'deleteKvConfig', ...n, '-s', 'ADMIN_TEST', '-k', 'k1'),
        'delete kv config from namespace success.\n',
      );
      assert.equal(await admin.getKVConfig('ADMIN_TEST', 'k1'), undefined);

      const topic = unique('AdminPermTopic');
      await updateTopicInCluster(topic);
      const wiped = await ok('admin', 'wipeWritePerm', ...n, '-b', brokerName);
      assert.match(
        wiped,
        new RegExp(
          `^wipe write perm of broker\\[${brokerName}\\] in name server\\[${embedded.namesrvAddr}\\] OK, [1-9]\\d*\n$`,
        ),
      );
      assert.equal((await admin.examineTopicRouteInfo(topic)).queueDatas[0]?.perm, 4);
      const added = await ok('admin', 'addWritePerm', ...n, '-b', brokerName);
      assert.match(added, /^add write perm of broker\[.*\] OK, [1-9]\d*\n$/);
      assert.equal((await admin.examineTopicRouteInfo(topic)).queueDatas[0]?.perm, 6);
    } finally {
      await admin.shutdown();
    }
  },
);

test(
  'bad input: usage and exit 2; a dead name server or broker: one line naming it, exit 1',
  LIMIT,
  async () => {
    const unknown = await rmq('admin', 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "frobnicate"/);
    const flag = await rmq('admin', 'topicList', ...n, '--nope');
    assert.equal(flag.code, 2);
    assert.match(flag.err, /^rmq admin topicList: unknown option --nope\nusage: rmq admin topicList /);
    const missing = await rmq('admin', 'topicRoute', ...n);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /missing required option: -t/);
    const both = await rmq('admin', 'updateTopic', ...n, '-t', 'x');
    assert.equal(both.code, 2);
    let noNsErr = '';
    const noNs = await adminFromArgs(
      ['topicList'],
      {
        out: () => undefined,
        err: (t) => {
          noNsErr += t;
        },
      },
      {},
    );
    assert.equal(noNs, 2);
    assert.match(noNsErr, /no name server: give -n host:port or set NAMESRV_ADDR/);

    const help = await rmq('admin', '--help');
    assert.equal(help.code, 0);
    assert.match(help.out, /^ {3}topicList {12}Fetch all topic list from name server$/m);
    const cmdHelp = await rmq('admin', 'help', 'updateTopic');
    assert.match(cmdHelp.out, /-t,--topic <arg> +topic name/);
    assert.equal((await rmq('updateTopic', '-h')).out, cmdHelp.out);

    const started = Date.now();
    const deadNs = await rmq('admin', 'topicList', '-n', '127.0.0.1:1');
    assert.equal(deadNs.code, 1);
    assert.match(deadNs.err, /^rmq admin topicList: .*127\.0\.0\.1:1.*\n$/);
    const deadBroker = await rmq('admin', 'brokerStatus', ...n, '-b', '127.0.0.1:1');
    assert.equal(deadBroker.code, 1);
    assert.match(deadBroker.err, /^rmq admin brokerStatus: .*127\.0\.0\.1:1.*\n$/);
    assert.ok(Date.now() - started < 15_000);
  },
);
