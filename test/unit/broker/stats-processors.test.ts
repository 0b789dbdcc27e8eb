/**
 * GET_TOPIC_STATS_INFO, GET_CONSUME_STATS, GET_BROKER_RUNTIME_INFO and VIEW_BROKER_STATS_DATA on a
 * started broker over a real store in a temp directory, talked to over in-memory connections, on a
 * hand-driven clock: the figures upstream reports, and bodies byte for byte as a Java broker would
 * write them (Java's HashMap order included).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { BROKER_REQUEST_HANDLERS } from '../../../src/broker/processor/processor-table.js';
import { computeNextMorningTimeMillis } from '../../../src/broker/stats/broker-stats.js';
import { Stats } from '../../../src/broker/stats/stats-names.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { javaDoubleString } from '../../../src/common/java-format.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeBrokerStatsData,
  encodeBrokerStatsData,
} from '../../../src/common/protocol/broker-stats-data.js';
import {
  decodeConsumeStats,
  encodeConsumeStats,
  type OffsetWrapper,
} from '../../../src/common/protocol/consume-stats.js';
import { decodeConsumeStatsList } from '../../../src/common/protocol/consume-stats-list.js';
import { decodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { javaMessageQueueMapOrder } from '../../../src/common/protocol/message-queue-map.js';
import { decodeQueryConsumeQueueResponseBody } from '../../../src/common/protocol/query-consume-queue-body.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  decodeTopicStatsTable,
  encodeTopicStatsTable,
  type TopicOffset,
} from '../../../src/common/protocol/topic-stats-table.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { goldenManifest } from '../../golden-fixtures.js';
import { inner } from '../store/commit-log-support.js';
import { consumerHeartbeat, heartbeatRequest, ManualClock, type TestClient } from './helpers.js';
import { cleanUp, startBroker } from './store-broker.js';

const LIMIT = { timeout: 20_000 };
const T0 = 1_700_000_000_000;
const TOPIC = 'TopicTest';
const GROUP = 'cg-stats';

afterEach(cleanUp);

interface Setup {
  broker: BrokerController;
  clock: ManualClock;
  c: TestClient;
  root: string;
}

async function setup(config: { autoDeleteUnusedStats?: boolean } = {}): Promise<Setup> {
  // The transaction check's reads of the half and op queues would count in the get figures.
  const { broker, clock, client, root } = await startBroker({
    config: { transactionCheckInterval: 3_600_000, ...config },
    clock: new ManualClock(T0),
  });
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
  );
  return { broker, clock, c: client, root };
}

/** Puts one message into the queue; resolves with its store time and record size. */
async function put(s: Setup, queueId: number, topic = TOPIC): Promise<{ at: bigint; bytes: number }> {
  const at = BigInt(s.clock.now());
  const r = await s.broker.messageStore.putMessage(inner({ topic, queueId }));
  assert.equal(r.isOk(), true);
  return { at, bytes: r.appendMessageResult?.wroteBytes ?? 0 };
}

function call(s: Setup, code: number, extFields: Record<string, string> = {}): Promise<RemotingCommand> {
  return s.c.call(createRequest(code, { extFields }));
}

const mq = (queueId: number, topic = TOPIC) => new MessageQueue(topic, 'broker-a', queueId);

test('the four codes are in the handler table', () => {
  for (const code of [
    RequestCode.GET_TOPIC_STATS_INFO,
    RequestCode.GET_CONSUME_STATS,
    RequestCode.GET_BROKER_RUNTIME_INFO,
    RequestCode.VIEW_BROKER_STATS_DATA,
  ]) {
    assert.ok(BROKER_REQUEST_HANDLERS.has(code), `code ${code}`);
  }
});

describe('GET_TOPIC_STATS_INFO (202)', () => {
  test('min/max offset and newest store time of each write queue, in Java HashMap order', LIMIT, async () => {
    const s = await setup();
    await put(s, 0);
    s.clock.advance(5);
    await put(s, 0);
    s.clock.advance(5);
    const lastOf0 = await put(s, 0);
    s.clock.advance(7);
    const onlyOf2 = await put(s, 2);
    const r = await call(s, RequestCode.GET_TOPIC_STATS_INFO, { topic: TOPIC });
    assert.equal(r.code, ResponseCode.SUCCESS);
    const expected: Array<[MessageQueue, TopicOffset]> = [
      [mq(0), { minOffset: 0n, maxOffset: 3n, lastUpdateTimestamp: lastOf0.at }],
      [mq(1), { minOffset: 0n, maxOffset: 0n, lastUpdateTimestamp: 0n }],
      [mq(2), { minOffset: 0n, maxOffset: 1n, lastUpdateTimestamp: onlyOf2.at }],
      [mq(3), { minOffset: 0n, maxOffset: 0n, lastUpdateTimestamp: 0n }],
    ];
    assert.equal(
      r.body?.toString('utf8'),
      encodeTopicStatsTable({ offsetTable: javaMessageQueueMapOrder(expected) }).toString('utf8'),
    );
    const t = decodeTopicStatsTable(r.body);
    assert.deepEqual(
      t.offsetTable.map(([q]) => q.queueId),
      javaMessageQueueMapOrder(expected).map(([q]) => q.queueId),
    );
  });

  test('only the write queues are listed; an unknown topic is TOPIC_NOT_EXIST', LIMIT, async () => {
    const s = await setup();
    s.broker.topicConfigManager.updateTopicConfig(
      createTopicConfig('Narrow', { readQueueNums: 8, writeQueueNums: 2 }),
    );
    const r = await call(s, RequestCode.GET_TOPIC_STATS_INFO, { topic: 'Narrow' });
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      decodeTopicStatsTable(r.body)
        .offsetTable.map(([q]) => q.queueId)
        .sort(),
      [0, 1],
    );
    const missing = await call(s, RequestCode.GET_TOPIC_STATS_INFO, { topic: 'Nope' });
    assert.equal(missing.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal(missing.remark, 'topic[Nope] not exist');
    const bad = await call(s, RequestCode.GET_TOPIC_STATS_INFO, {});
    assert.equal(bad.code, ResponseCode.SYSTEM_ERROR);
    assert.match(bad.remark ?? '', /topic/);
  });
});

describe('GET_CONSUME_STATS (208)', () => {
  test('broker and consumer offsets, last consumed store time and the group get TPS', LIMIT, async () => {
    const s = await setup();
    s.clock.advance(0);
    const times: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      times.push((await put(s, 1)).at);
      s.clock.advance(3);
    }
    await put(s, 3);
    s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, TOPIC, 1, 2n);
    s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, TOPIC, 3, 0n);
    s.broker.brokerStatsManager.incGroupGetNums(GROUP, TOPIC, 30);
    s.clock.advance(10_000);
    const r = await call(s, RequestCode.GET_CONSUME_STATS, { consumerGroup: GROUP, topic: TOPIC });
    assert.equal(r.code, ResponseCode.SUCCESS);
    // 5.x's pullOffset: the consumer offset for a group that pops nothing (nothing in flight).
    const expected: Array<[MessageQueue, OffsetWrapper]> = [
      [mq(0), { brokerOffset: 0n, consumerOffset: 0n, lastTimestamp: 0n, pullOffset: 0n }],
      // Consumed up to offset 2: the last consumed message is offset 1.
      [mq(1), { brokerOffset: 3n, consumerOffset: 2n, lastTimestamp: times[1] ?? -1n, pullOffset: 2n }],
      [mq(2), { brokerOffset: 0n, consumerOffset: 0n, lastTimestamp: 0n, pullOffset: 0n }],
      [mq(3), { brokerOffset: 1n, consumerOffset: 0n, lastTimestamp: 0n, pullOffset: 0n }],
    ];
    // 30 messages got in the 10 s since the sampling began.
    const body = encodeConsumeStats({ offsetTable: javaMessageQueueMapOrder(expected), consumeTps: 3 });
    assert.equal(r.body?.toString('utf8'), body.toString('utf8'));
    assert.equal(decodeConsumeStats(r.body).consumeTps, 3);
  });

  test('a blank topic means every topic the group has offsets in', LIMIT, async () => {
    const s = await setup();
    s.broker.topicConfigManager.updateTopicConfig(
      createTopicConfig('Other', { readQueueNums: 2, writeQueueNums: 2 }),
    );
    s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, TOPIC, 0, 0n);
    s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, 'Other', 1, 0n);
    // Offsets in a topic the broker no longer has are skipped.
    s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, 'Gone', 0, 0n);
    for (const topic of [undefined, '', '  ']) {
      const r = await call(s, RequestCode.GET_CONSUME_STATS, {
        consumerGroup: GROUP,
        ...(topic === undefined ? {} : { topic }),
      });
      assert.equal(r.code, ResponseCode.SUCCESS);
      const got = decodeConsumeStats(r.body).offsetTable.map(([q]) => `${q.topic}/${q.queueId}`);
      const zero = { brokerOffset: 0n, consumerOffset: 0n, lastTimestamp: 0n };
      const inserted = javaHashMapOrder([TOPIC, 'Other', 'Gone'])
        .filter((t) => t !== 'Gone')
        .flatMap((t) =>
          (t === TOPIC ? [0, 1, 2, 3] : [0, 1]).map((q): [MessageQueue, OffsetWrapper] => [mq(q, t), zero]),
        );
      assert.deepEqual(
        got,
        javaMessageQueueMapOrder(inserted).map(([q]) => `${q.topic}/${q.queueId}`),
      );
      assert.equal(got.length, 6);
    }
  });

  test('an online group is only reported for the topics it subscribes to', LIMIT, async () => {
    const s = await setup();
    const hb = await s.c.call(heartbeatRequest(consumerHeartbeat('client-1', GROUP, ['Other'])));
    assert.equal(hb.code, ResponseCode.SUCCESS);
    const r = await call(s, RequestCode.GET_CONSUME_STATS, { consumerGroup: GROUP, topic: TOPIC });
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(r.body?.toString(), '{"consumeTps":0.0,"offsetTable":{}}');
    // A group nobody runs is reported for any topic.
    const offline = await call(s, RequestCode.GET_CONSUME_STATS, {
      consumerGroup: 'cg-offline',
      topic: TOPIC,
    });
    assert.equal(decodeConsumeStats(offline.body).offsetTable.length, 4);
    const unknown = await call(s, RequestCode.GET_CONSUME_STATS, { consumerGroup: GROUP, topic: 'Nope' });
    assert.equal(unknown.code, ResponseCode.SUCCESS);
    assert.equal(unknown.body?.toString(), '{"consumeTps":0.0,"offsetTable":{}}');
  });
});

/** The keys upstream's prepareRuntimeInfo puts, in put order (the golden fixture lists them). */
function runtimeInfoKeys(commitLogPath: string): string[] {
  const content = goldenManifest().bodies.find((b) => b.name === 'kv-table.runtime-info')?.content ?? '';
  const keys = /in the order (\S+); each value/.exec(content)?.[1]?.split(',') ?? [];
  assert.equal(keys.length, 48);
  return keys.map((k) => (k.startsWith('commitLogDiskRatio_') ? `commitLogDiskRatio_${commitLogPath}` : k));
}

describe('GET_BROKER_CONSUME_STATS (317)', () => {
  test(
    'every subscription group, one ConsumeStats per topic over its write queues, the total diff',
    LIMIT,
    async () => {
      const s = await setup();
      s.broker.topicConfigManager.updateTopicConfig(
        createTopicConfig('Ordered', { readQueueNums: 1, writeQueueNums: 2, order: true }),
      );
      s.broker.subscriptionGroupManager.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(GROUP));
      for (let i = 0; i < 3; i++) await put(s, 1);
      for (let i = 0; i < 5; i++) await put(s, 1, 'Ordered');
      s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, TOPIC, 1, 2n);
      s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, 'Ordered', 1, 1n);
      s.broker.consumerOffsetManager.commitOffset('10.0.0.9', GROUP, 'Gone', 0, 0n);

      const r = await call(s, RequestCode.GET_BROKER_CONSUME_STATS, { isOrder: 'false' });
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      const list = decodeConsumeStatsList(r.body);
      assert.equal(list.brokerAddr, s.broker.brokerAddr);
      const groups = list.consumeStatsList.map(([g]) => g);
      assert.deepEqual(groups, s.broker.subscriptionGroupManager.groupNamesInJavaOrder());
      assert.ok(groups.includes(GROUP) && groups.includes('TOOLS_CONSUMER'), groups.join(','));
      const mine = list.consumeStatsList.find(([g]) => g === GROUP)?.[1] ?? [];
      // One per topic, in the HashSet order of the group's topics; 'Gone' is not on this broker.
      const topicsOf = (stats: typeof mine) => stats.map((st) => st.offsetTable[0]?.[0].topic);
      assert.deepEqual(
        topicsOf(mine),
        javaHashMapOrder([TOPIC, 'Ordered', 'Gone']).filter((t) => t !== 'Gone'),
      );
      const ordered = mine.find((st) => st.offsetTable[0]?.[0].topic === 'Ordered');
      assert.equal(ordered?.offsetTable.length, 2, 'the write queues, not the one read queue');
      // TopicTest: 3 - 2 on queue 1; Ordered: 5 - 1 on queue 1.
      assert.equal(list.totalDiff, 1n + 4n);
      for (const [g, stats] of list.consumeStatsList) if (g !== GROUP) assert.deepEqual(stats, [], g);

      const onlyOrdered = decodeConsumeStatsList(
        (await call(s, RequestCode.GET_BROKER_CONSUME_STATS, { isOrder: 'true' })).body,
      );
      const mineOrdered = onlyOrdered.consumeStatsList.find(([g]) => g === GROUP)?.[1] ?? [];
      assert.deepEqual(topicsOf(mineOrdered), ['Ordered']);
      assert.equal(onlyOrdered.totalDiff, 4n);

      const bad = await call(s, RequestCode.GET_BROKER_CONSUME_STATS, {});
      assert.notEqual(bad.code, ResponseCode.SUCCESS);
      assert.equal(bad.remark, 'the custom field <isOrder> is null');
    },
  );
});

describe('QUERY_CONSUME_QUEUE (321)', () => {
  test("raw entries from an index, the bounds, and the group's subscription when asked", LIMIT, async () => {
    const s = await setup();
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) sizes.push((await put(s, 1)).bytes);
    const q = (fields: Record<string, string>) =>
      call(s, RequestCode.QUERY_CONSUME_QUEUE, { topic: TOPIC, queueId: '1', ...fields });

    const r = await q({ index: '1', count: '5' });
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    const body = decodeQueryConsumeQueueResponseBody(r.body);
    assert.equal(body.minQueueIndex, 0n);
    assert.equal(body.maxQueueIndex, 3n);
    assert.deepEqual(
      body.queueData?.map((e) => [e.physicOffset, e.physicSize, e.eval]),
      [1n, 2n].map((i) => [
        s.broker.messageStore.getCommitLogOffsetInQueue(TOPIC, 1, i),
        sizes[Number(i)],
        false,
      ]),
    );
    assert.equal(body.subscriptionData, undefined);
    assert.equal(body.filterData, undefined);

    const counted = decodeQueryConsumeQueueResponseBody((await q({ index: '0', count: '1' })).body);
    assert.equal(counted.queueData?.length, 1);
    const none = decodeQueryConsumeQueueResponseBody((await q({ index: '0', count: '0' })).body);
    assert.deepEqual(none.queueData, []);

    const offline = decodeQueryConsumeQueueResponseBody(
      (await q({ index: '0', count: '1', consumerGroup: GROUP })).body,
    );
    assert.equal(offline.filterData, `${GROUP}@${TOPIC} is not online!`);
    assert.equal(offline.subscriptionData, undefined);
    await s.c.call(heartbeatRequest(consumerHeartbeat('c1', GROUP, [TOPIC])));
    const online = decodeQueryConsumeQueueResponseBody(
      (await q({ index: '0', count: '1', consumerGroup: GROUP })).body,
    );
    assert.equal(online.subscriptionData?.subString, '*');
    assert.equal(online.filterData, 'null', 'a TAG subscription has no filter data');

    const past = await q({ index: '3', count: '1' });
    assert.equal(past.code, ResponseCode.SUCCESS);
    assert.equal(past.remark, `Index 3 of 1@${TOPIC} is not exist!`);
    assert.equal(past.body, undefined);
    const missing = await call(s, RequestCode.QUERY_CONSUME_QUEUE, {
      topic: 'NoSuchTopic',
      queueId: '0',
      index: '0',
      count: '1',
    });
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, '0@NoSuchTopic is not exist!');
  });
});

describe('GET_BROKER_RUNTIME_INFO (28)', () => {
  test("an idle broker: upstream's keys, in Java's HashMap(64) order, with idle values", LIMIT, async () => {
    const s = await setup();
    const r = await call(s, RequestCode.GET_BROKER_RUNTIME_INFO);
    assert.equal(r.code, ResponseCode.SUCCESS);
    const table = decodeKVTable(r.body);
    const keys = runtimeInfoKeys(join(s.root, 'commitlog'));
    assert.deepEqual([...table.keys()], javaHashMapOrder(keys, { initialCapacity: 64 }));
    const expected: Record<string, string> = {
      brokerVersionDesc: 'V4_9_8',
      brokerVersion: '409',
      bootTimestamp: String(T0),
      runtime: '[ 0 days, 0 hours, 0 minutes, 0 seconds ]',
      // Upstream reports at least 1.
      putMessageTimesTotal: '1',
      putMessageSizeTotal: '0',
      putMessageFailedTimes: '0',
      putMessageEntireTimeMax: '0',
      putMessageAverageSize: '0.0',
      // No minute has passed: upstream has no histogram yet.
      putMessageDistributeTime: 'null',
      dispatchMaxBuffer: '0',
      getMessageEntireTimeMax: '0',
      putTps: '  ',
      getFoundTps: '  ',
      getMissTps: '  ',
      getTransferedTps: '  ',
      getTotalTps: '0.0 0.0 0.0',
      putLatency99: '0.00',
      putLatency999: '0.00',
      commitLogMinOffset: '-1',
      commitLogMaxOffset: '0',
      msgPutTotalYesterdayMorning: '0',
      msgPutTotalTodayMorning: '0',
      msgPutTotalTodayNow: '0',
      msgGetTotalYesterdayMorning: '0',
      msgGetTotalTodayMorning: '0',
      msgGetTotalTodayNow: '0',
      sendThreadPoolQueueSize: '0',
      sendThreadPoolQueueCapacity: '10000',
      pullThreadPoolQueueSize: '0',
      pullThreadPoolQueueCapacity: '100000',
      queryThreadPoolQueueSize: '0',
      queryThreadPoolQueueCapacity: '20000',
      EndTransactionQueueSize: '0',
      EndTransactionThreadPoolQueueCapacity: '100000',
      dispatchBehindBytes: '0',
      pageCacheLockTimeMills: '0',
      sendThreadPoolQueueHeadWaitTimeMills: '0',
      pullThreadPoolQueueHeadWaitTimeMills: '0',
      queryThreadPoolQueueHeadWaitTimeMills: '0',
      earliestMessageTimeStamp: '-1',
      startAcceptSendRequestTimeStamp: '0',
      remainTransientStoreBufferNumbs: '2147483647',
      remainHowManyDataToFlush: '0 B',
    };
    for (const [k, v] of Object.entries(expected)) assert.equal(table.get(k), v, k);
    const ratio = table.get('commitLogDiskRatio') ?? '';
    assert.match(ratio, /^(0\.\d{1,2}|1\.0)$/);
    assert.equal(table.get(`commitLogDiskRatio_${join(s.root, 'commitlog')}`), ratio);
    assert.match(table.get('consumeQueueDiskRatio') ?? '', /^(-1\.0|0\.\d{1,2}|1\.0)$/);
    assert.match(
      table.get('commitLogDirCapacity') ?? '',
      /^Total : [\d.]+ [KMGTPE]?i?B, Free : [\d.]+ [KMGTPE]?i?B\.$/,
    );
  });

  test('after puts, gets and a minute: totals, TPS, histogram, latency, runtime', LIMIT, async () => {
    const s = await setup();
    s.clock.advance(1000);
    let bytes = 0;
    const first = await put(s, 0);
    bytes += first.bytes;
    for (const q of [0, 0, 2]) bytes += (await put(s, q)).bytes;
    const got = await s.broker.messageStore.getMessage('g', TOPIC, 0, 0n, 32);
    assert.equal(got.messages.length, 3);
    s.clock.advance(60_000);
    const table = decodeKVTable((await call(s, RequestCode.GET_BROKER_RUNTIME_INFO)).body);
    const value = (k: string) => table.get(k);
    assert.equal(value('putMessageTimesTotal'), '4');
    assert.equal(value('msgPutTotalTodayNow'), '4');
    assert.equal(value('msgGetTotalTodayNow'), '3');
    assert.equal(value('putMessageSizeTotal'), String(bytes));
    assert.equal(value('putMessageAverageSize'), javaDoubleString(bytes / 4));
    assert.equal(value('commitLogMinOffset'), '0');
    assert.equal(value('commitLogMaxOffset'), String(bytes));
    assert.equal(value('earliestMessageTimeStamp'), String(first.at));
    assert.equal(value('runtime'), '[ 0 days, 0 hours, 1 minutes, 1 seconds ]');
    // Samples every second from T0 + 1 s; the puts came right after the first.
    assert.equal(value('putTps'), `0.0 ${javaDoubleString((4 / 60_000) * 1000)} `);
    assert.equal(value('getFoundTps'), `0.0 ${javaDoubleString((1 / 60_000) * 1000)} `);
    assert.equal(value('getTransferedTps'), `0.0 ${javaDoubleString((3 / 60_000) * 1000)} `);
    assert.equal(value('getTotalTps'), `0.0 ${javaDoubleString((1 / 60_000) * 1000)} 0.0`);
    // The first minute's histogram: every put took 0 ms on this clock.
    assert.equal(
      value('putMessageDistributeTime'),
      '[<=0ms]:4 [0~10ms]:0 [10~50ms]:0 [50~100ms]:0 [100~200ms]:0 [200~500ms]:0 [500ms~1s]:0 ' +
        '[1~2s]:0 [2~3s]:0 [3~4s]:0 [4~5s]:0 [5~10s]:0 [10s~]:0 ',
    );
    // 4 puts in the first bucket (up to 1 ms): the 99th percentile is 3/4 of the way into it.
    assert.equal(value('putLatency99'), '0.75');
    assert.equal(value('putLatency999'), '0.75');
    assert.match(value('remainHowManyDataToFlush') ?? '', /^\d+ B$/);
  });

  test("at midnight today's totals become the morning figures", LIMIT, async () => {
    const s = await setup();
    await put(s, 0);
    await put(s, 1);
    s.clock.advance(computeNextMorningTimeMillis(T0) - T0);
    const table = decodeKVTable((await call(s, RequestCode.GET_BROKER_RUNTIME_INFO)).body);
    assert.equal(table.get('msgPutTotalYesterdayMorning'), '0');
    assert.equal(table.get('msgPutTotalTodayMorning'), '2');
    assert.equal(table.get('msgPutTotalTodayNow'), '2');
  });
});

describe('VIEW_BROKER_STATS_DATA (315)', () => {
  test("one item's minute, hour and day figures; SYSTEM_ERROR for an unknown item", LIMIT, async () => {
    const s = await setup();
    s.clock.advance(0);
    const missing = await call(s, RequestCode.VIEW_BROKER_STATS_DATA, {
      statsName: Stats.TOPIC_PUT_NUMS,
      statsKey: TOPIC,
    });
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, `The stats <TOPIC_PUT_NUMS> <${TOPIC}> not exist`);
    s.broker.brokerStatsManager.incTopicPutNums(TOPIC, 3, 1);
    s.broker.brokerStatsManager.incTopicPutNums(TOPIC, 1, 1);
    s.clock.advance(10_000);
    const r = await call(s, RequestCode.VIEW_BROKER_STATS_DATA, {
      statsName: Stats.TOPIC_PUT_NUMS,
      statsKey: TOPIC,
    });
    assert.equal(r.code, ResponseCode.SUCCESS);
    const zero = { sum: 0n, tps: 0, avgpt: 0 };
    const expected = { statsMinute: { sum: 4n, tps: 0.4, avgpt: 2 }, statsHour: zero, statsDay: zero };
    assert.equal(r.body?.toString(), encodeBrokerStatsData(expected).toString());
    assert.deepEqual(decodeBrokerStatsData(r.body), expected);
    s.clock.advance(600_000);
    const hour = decodeBrokerStatsData(
      (
        await call(s, RequestCode.VIEW_BROKER_STATS_DATA, {
          statsName: Stats.TOPIC_PUT_NUMS,
          statsKey: TOPIC,
        })
      ).body,
    );
    assert.deepEqual(hour.statsHour, { sum: 4n, tps: 4000 / 600_000, avgpt: 2 });
    assert.deepEqual(hour.statsMinute, zero);
  });

  test('the broker stops sampling when it shuts down', LIMIT, async () => {
    const s = await setup();
    s.clock.advance(0);
    s.broker.brokerStatsManager.incTopicPutNums(TOPIC, 5, 1);
    await s.broker.shutdown();
    s.clock.advance(60_000);
    const item = s.broker.brokerStatsManager.getStatsItem(Stats.TOPIC_PUT_NUMS, TOPIC);
    assert.deepEqual(item?.getStatsDataInMinute(), { sum: 0, tps: 0, avgpt: 0, times: 0 });
  });
});

describe('deleting a topic or a group with autoDeleteUnusedStats', () => {
  for (const auto of [true, false]) {
    test(`autoDeleteUnusedStats=${auto}`, LIMIT, async () => {
      const s = await setup({ autoDeleteUnusedStats: auto });
      const m = s.broker.brokerStatsManager;
      m.incTopicPutNums(TOPIC);
      m.incGroupGetNums(GROUP, 'Other', 1);
      const del = await call(s, RequestCode.DELETE_TOPIC_IN_BROKER, { topic: TOPIC });
      assert.equal(del.code, ResponseCode.SUCCESS);
      const delGroup = await call(s, RequestCode.DELETE_SUBSCRIPTIONGROUP, {
        groupName: GROUP,
        removeOffset: 'false',
      });
      assert.equal(delGroup.code, ResponseCode.SUCCESS);
      assert.equal(m.getStatsItem(Stats.TOPIC_PUT_NUMS, TOPIC) === undefined, auto);
      assert.equal(m.getStatsItem(Stats.GROUP_GET_NUMS, `Other@${GROUP}`) === undefined, auto);
    });
  }
});
