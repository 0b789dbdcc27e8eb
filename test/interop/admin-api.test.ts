/**
 * Our admin API against the official 4.9.x name server and broker, and the same steps against ours:
 * topic create, list, route and stats; group create and delete; consume stats after our consumer
 * read the topic; cluster info; broker config; KV config; wipe and add write permission; offset
 * clones. Each side yields the facts the calls read, and the two sets must agree.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../src/admin/index.js';
import { createProducer, createPushConsumer, MQClientError } from '../../src/client/index.js';
import { PermName } from '../../src/common/constants.js';
import { createLogger } from '../../src/common/logger.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { type BrokerHandle, type NamesrvHandle, startBroker, startNamesrv } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

const quiet = createLogger('admin-interop', { level: 'silent' });
const TOPIC = 'AdminApiTopic';
const GROUP = 'admin_api_cg';
const SUB_GROUP = 'admin_api_sub';
const COUNT = 8;
const CONSUME_TIMEOUT_MS = 20_000;

interface Side {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Produces COUNT messages and consumes them with a group whose offsets reach the broker at shutdown. */
async function produceAndConsume(side: Side): Promise<void> {
  const producer = createProducer({
    namesrvAddr: side.namesrvAddr,
    producerGroup: 'admin_api_pg',
    logger: quiet,
  });
  await producer.start();
  try {
    for (let i = 0; i < COUNT; i++) await producer.send({ topic: TOPIC, body: `m${i}`, keys: `k${i}` });
  } finally {
    await producer.shutdown();
  }
  const consumer = createPushConsumer({ namesrvAddr: side.namesrvAddr, consumerGroup: GROUP, logger: quiet });
  let consumed = 0;
  consumer.subscribe(TOPIC, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      consumed += msgs.length;
      return 'CONSUME_SUCCESS';
    },
  });
  await consumer.start();
  try {
    await until(
      async () => (consumed >= COUNT ? true : undefined),
      'the consumer read every message',
      CONSUME_TIMEOUT_MS,
    );
  } finally {
    await consumer.shutdown();
  }
}

/** The admin's view of one cluster after the same steps; per-side checks inline. */
async function factsOf(side: Side): Promise<Record<string, unknown>> {
  const admin: MQAdminExt = createAdmin({ namesrvAddr: side.namesrvAddr, logger: quiet });
  await admin.start();
  try {
    const facts: Record<string, unknown> = {};
    await admin.createAndUpdateTopicConfig(side.brokerAddr, {
      topicName: TOPIC,
      readQueueNums: 4,
      writeQueueNums: 4,
    });
    const route = await until(
      async () =>
        (await admin.examineTopicRouteInfo(TOPIC)).queueDatas.length > 0
          ? admin.examineTopicRouteInfo(TOPIC)
          : undefined,
      'the topic is routed',
      15_000,
    );
    const config = await admin.examineTopicConfig(side.brokerAddr, TOPIC);
    facts.topicConfig = {
      r: config?.readQueueNums,
      w: config?.writeQueueNums,
      perm: config?.perm,
      order: config?.order,
    };
    facts.route = route.queueDatas.map((q) => ({
      broker: q.brokerName === side.brokerName,
      r: q.readQueueNums,
      w: q.writeQueueNums,
      perm: q.perm,
    }));
    facts.routeAddr = route.brokerDatas[0]?.brokerAddrs.get(0) === side.brokerAddr;
    facts.listed = (await admin.fetchAllTopicList()).topicList.includes(TOPIC);
    facts.byCluster = (await admin.fetchTopicsByCluster('DefaultCluster')).topicList.includes(TOPIC);
    facts.clusters = [...(await admin.getTopicClusterList(TOPIC))];

    await produceAndConsume(side);
    const stats = await admin.examineTopicStats(TOPIC);
    facts.statsQueues = stats.offsetTable.length;
    facts.statsTotal = stats.offsetTable.reduce((n, [, o]) => n + o.maxOffset - o.minOffset, 0n);
    facts.statsUpdated = stats.offsetTable.some(([, o]) => o.lastUpdateTimestamp > 0n);

    const consume = await admin.examineConsumeStats(GROUP, TOPIC);
    facts.consumeQueues = consume.offsetTable.length;
    facts.consumed = consume.offsetTable.reduce((n, [, o]) => n + o.consumerOffset, 0n);
    facts.lag = consume.offsetTable.reduce((n, [, o]) => n + o.brokerOffset - o.consumerOffset, 0n);

    await admin.createAndUpdateSubscriptionGroupConfig(side.brokerAddr, {
      groupName: SUB_GROUP,
      retryMaxTimes: 4,
      consumeBroadcastEnable: false,
    });
    const group = await admin.examineSubscriptionGroupConfig(side.brokerAddr, SUB_GROUP);
    facts.group = group === undefined ? undefined : { ...group };
    await admin.deleteSubscriptionGroup(side.brokerAddr, SUB_GROUP);
    facts.groupDeleted =
      (await admin.examineSubscriptionGroupConfig(side.brokerAddr, SUB_GROUP)) === undefined;

    const info = await admin.examineBrokerClusterInfo();
    facts.clusterMembers = info.clusterAddrTable.get('DefaultCluster')?.includes(side.brokerName);
    facts.clusterAddr = info.brokerAddrTable.get(side.brokerName)?.brokerAddrs.get(0) === side.brokerAddr;
    facts.masters = (await admin.fetchMasterAddrByClusterName('DefaultCluster')).includes(side.brokerAddr);

    const brokerConfig = await admin.getBrokerConfig(side.brokerAddr);
    facts.brokerConfig = {
      brokerName: brokerConfig.get('brokerName') === side.brokerName,
      brokerClusterName: brokerConfig.get('brokerClusterName'),
      brokerId: brokerConfig.get('brokerId'),
      defaultTopicQueueNums: brokerConfig.get('defaultTopicQueueNums'),
    };
    // The official broker fails this (NoSuchElementException) until its store stats took a first sample.
    const runtime = await until(
      () => admin.fetchBrokerRuntimeStats(side.brokerAddr),
      'runtime stats',
      10_000,
    );
    facts.runtimeKeys = ['brokerVersionDesc', 'msgPutTotalTodayNow', 'commitLogMaxOffset'].filter((k) =>
      runtime.has(k),
    );

    await admin.createAndUpdateKvConfig('ADMIN_API_NS', 'k1', 'v1');
    facts.kvRead = await admin.getKVConfig('ADMIN_API_NS', 'k1');
    facts.kvList = [...(await admin.getKVListByNamespace('ADMIN_API_NS'))];
    await admin.deleteKvConfig('ADMIN_API_NS', 'k1');
    facts.kvDeleted = await admin.getKVConfig('ADMIN_API_NS', 'k1');

    const wiped = await admin.wipeWritePermOfBroker(side.namesrvAddr, side.brokerName);
    const wipedPerm = (await admin.examineTopicRouteInfo(TOPIC)).queueDatas[0]?.perm ?? -1;
    const added = await admin.addWritePermOfBroker(side.namesrvAddr, side.brokerName);
    const addedPerm = (await admin.examineTopicRouteInfo(TOPIC)).queueDatas[0]?.perm ?? -1;
    assert.ok(wiped > 0, `wiped ${wiped}`);
    facts.writePerm = { wipedEqualsAdded: wiped === added, wipedPerm, addedPerm };

    facts.unknownTopic = await admin.examineTopicRouteInfo('AdminApiNoSuchTopic').then(
      () => 'found',
      (e: unknown) => (e instanceof MQClientError ? e.responseCode : String(e)),
    );
    return facts;
  } finally {
    await admin.shutdown();
  }
}

describe('our admin API against the official 4.9.x name server and broker, and against ours', () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;
  let pair: LoopbackPair | undefined;

  before(async () => {
    [namesrv, pair] = await Promise.all([startNamesrv(), startLoopbackPair('admin-api')]);
    broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-official' });
  });

  after(async () => {
    await broker?.close();
    await namesrv?.close();
    await pair?.close();
  });

  test('the same calls read the same facts from both', async () => {
    const official = broker as BrokerHandle;
    const ours = pair as LoopbackPair;
    const [theirs, mine] = await Promise.all([
      factsOf({
        namesrvAddr: (namesrv as NamesrvHandle).addr,
        brokerAddr: official.addr,
        brokerName: official.brokerName,
      }),
      factsOf({ namesrvAddr: ours.namesrvAddr, brokerAddr: ours.brokerAddr, brokerName: 'broker-ts' }),
    ]);
    assert.deepEqual(theirs.topicConfig, {
      r: 4,
      w: 4,
      perm: PermName.PERM_READ | PermName.PERM_WRITE,
      order: false,
    });
    assert.equal(theirs.statsTotal, BigInt(COUNT));
    assert.equal(theirs.consumed, BigInt(COUNT));
    assert.equal(theirs.unknownTopic, ResponseCode.TOPIC_NOT_EXIST);
    assert.deepEqual(theirs.writePerm, {
      wipedEqualsAdded: true,
      wipedPerm: PermName.PERM_READ,
      addedPerm: PermName.PERM_READ | PermName.PERM_WRITE,
    });
    assert.deepEqual(mine, theirs);
  });

  test('cloneGroupOffset copies the group offsets on both brokers', async () => {
    const official = broker as BrokerHandle;
    const ours = pair as LoopbackPair;
    const cloneOn = async (namesrvAddr: string, brokerAddr: string) => {
      const admin = createAdmin({ namesrvAddr, logger: quiet });
      await admin.start();
      try {
        const dest = 'admin_api_clone';
        // The destination's retry topic is how examineConsumeStats finds its brokers.
        await admin.createAndUpdateTopicConfig(brokerAddr, {
          topicName: `%RETRY%${dest}`,
          readQueueNums: 1,
          writeQueueNums: 1,
        });
        await admin.cloneGroupOffset(GROUP, dest, TOPIC, true);
        const cloned = await until(
          () => admin.examineConsumeStats(dest, TOPIC),
          'the clone is routed',
          15_000,
        );
        const source = await admin.examineConsumeStats(GROUP, TOPIC);
        const perQueue = (s: typeof source) =>
          s.offsetTable.map(([mq, o]) => [mq.queueId, o.consumerOffset] as const).sort((a, b) => a[0] - b[0]);
        assert.deepEqual(perQueue(cloned), perQueue(source));
        return cloned.offsetTable.reduce((n, [, o]) => n + o.consumerOffset, 0n);
      } finally {
        await admin.shutdown();
      }
    };
    const [theirs, mine] = await Promise.all([
      cloneOn((namesrv as NamesrvHandle).addr, official.addr),
      cloneOn(ours.namesrvAddr, ours.brokerAddr),
    ]);
    assert.equal(theirs, BigInt(COUNT));
    assert.equal(mine, theirs);
  });
});
