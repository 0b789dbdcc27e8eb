/**
 * BrokerStatsManager, StatsItem/StatsItemSet and BrokerStats on a hand-driven clock: upstream's keys,
 * the 10 s / 10 min / 1 h sampling and the windows it gives, deletion by topic and group, the
 * midnight record, and timers that stop on shutdown.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { BrokerStats, computeNextMorningTimeMillis } from '../../../src/broker/stats/broker-stats.js';
import { BrokerStatsManager, buildStatsKey } from '../../../src/broker/stats/broker-stats-manager.js';
import { Stats } from '../../../src/broker/stats/stats-names.js';
import { scheduleAtFixedRate } from '../../../src/common/stats/fixed-rate.js';
import { StatsItem } from '../../../src/common/stats/stats-item.js';
import { messageStoreConfig } from '../../../src/store/config.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { FakeMessageStore, ManualClock, quiet } from './helpers.js';

const T0 = 1_700_000_000_000;

function manager(enableQueueStat = true): { m: BrokerStatsManager; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const m = new BrokerStatsManager({ clusterName: 'DefaultCluster', enableQueueStat, clock });
  return { m, clock };
}

describe('StatsItem windows (upstream computeStatsData)', () => {
  test('the first sample adds a zero snapshot one interval back; sum, tps, avgpt and times', () => {
    const item = new StatsItem('TOPIC_PUT_NUMS', 'T');
    assert.deepEqual(item.getStatsDataInMinute(), { sum: 0, tps: 0, avgpt: 0, times: 0 });
    item.add(30, 3);
    item.samplingInSeconds(T0);
    // [T0 - 10 s: 0] .. [T0: 30 in 3 adds]
    assert.deepEqual(item.getStatsDataInMinute(), { sum: 30, tps: 3, avgpt: 10, times: 3 });
    item.add(60, 1);
    item.samplingInSeconds(T0 + 10_000);
    assert.deepEqual(item.getStatsDataInMinute(), { sum: 90, tps: 4.5, avgpt: 22.5, times: 4 });
  });

  test('the minute keeps 7 snapshots (60 s), the hour 7 (60 min), the day 25 (24 h)', () => {
    const item = new StatsItem('X', 'k');
    for (let i = 0; i < 20; i++) {
      item.add(10, 1);
      item.samplingInSeconds(T0 + i * 10_000);
      item.samplingInMinutes(T0 + i * 600_000);
      item.samplingInHour(T0 + i * 3_600_000);
    }
    // The last 7 snapshots span 6 intervals with 10 added in each.
    assert.deepEqual(item.getStatsDataInMinute(), { sum: 60, tps: 1, avgpt: 10, times: 6 });
    assert.equal(item.getStatsDataInHour().sum, 60);
    assert.equal(item.getStatsDataInHour().tps, 60_000 / (6 * 600_000));
    // The day's 25 had not filled: all 20 samples plus the zero one.
    assert.equal(item.getStatsDataInDay().sum, 200);
    assert.equal(item.getStatsDataInDay().times, 20);
  });
});

describe('BrokerStatsManager', () => {
  test("upstream's keys: topic, topic@group, topic@queueId, cluster name", () => {
    const { m } = manager();
    m.incTopicPutNums('T', 3, 1);
    m.incTopicPutNums('T');
    m.incTopicPutSize('T', 512);
    m.incGroupGetNums('G', 'T', 5);
    m.incGroupGetSize('G', 'T', 700);
    m.incSendBackNums('G', 'T');
    m.incQueuePutNums('T', 2, 4, 1);
    m.incQueuePutSize('T', 2, 99);
    m.incQueueGetNums('G', 'T', 1, 6);
    m.incQueueGetSize('G', 'T', 1, 60);
    m.incBrokerPutNums(3);
    m.incBrokerPutNums();
    m.incBrokerGetNums(5);
    m.incGroupGetLatency('G', 'T', 3, 12);
    const value = (name: string, key: string) => {
      const item = m.getStatsItem(name, key);
      return item === undefined ? undefined : [item.value, item.times];
    };
    assert.deepEqual(value(Stats.TOPIC_PUT_NUMS, 'T'), [4, 2]);
    assert.deepEqual(value(Stats.TOPIC_PUT_SIZE, 'T'), [512, 1]);
    assert.deepEqual(value(Stats.GROUP_GET_NUMS, 'T@G'), [5, 1]);
    assert.deepEqual(value(Stats.GROUP_GET_SIZE, 'T@G'), [700, 1]);
    assert.deepEqual(value(Stats.SNDBCK_PUT_NUMS, 'T@G'), [1, 1]);
    assert.deepEqual(value(Stats.QUEUE_PUT_NUMS, 'T@2'), [4, 1]);
    assert.deepEqual(value(Stats.QUEUE_PUT_SIZE, 'T@2'), [99, 1]);
    assert.deepEqual(value(Stats.QUEUE_GET_NUMS, 'T@1@G'), [6, 1]);
    assert.deepEqual(value(Stats.QUEUE_GET_SIZE, 'T@1@G'), [60, 1]);
    // incBrokerPutNums/GetNums add to the value only, as upstream's getValue().add.
    assert.deepEqual(value(Stats.BROKER_PUT_NUMS, 'DefaultCluster'), [4, 0]);
    assert.deepEqual(value(Stats.BROKER_GET_NUMS, 'DefaultCluster'), [5, 0]);
    // With queue stats, latency is keyed queueId@topic@group and is a response-time item.
    assert.deepEqual(value(Stats.GROUP_GET_LATENCY, '3@T@G'), [12, 1]);
    assert.equal(m.getStatsItem(Stats.GROUP_GET_LATENCY, '3@T@G')?.rt, true);
    assert.equal(m.getStatsItem(Stats.TOPIC_PUT_NUMS, 'nope'), undefined);
    assert.equal(m.getStatsItem('NO_SUCH_STATS', 'T'), undefined);
    assert.equal(buildStatsKey(3, 'T', 'G'), '3@T@G');
  });

  test('without queue stats there are no QUEUE_* sets and latency is keyed topic@group', () => {
    const { m } = manager(false);
    m.incQueuePutNums('T', 0);
    m.incQueueGetNums('G', 'T', 0, 1);
    assert.equal(m.getStatsItemSet(Stats.QUEUE_PUT_NUMS), undefined);
    assert.equal(m.getStatsItemSet(Stats.QUEUE_GET_NUMS), undefined);
    m.incGroupGetLatency('G', 'T', 3, 12);
    assert.ok(m.getStatsItem(Stats.GROUP_GET_LATENCY, 'T@G'));
    // Upstream throws here (a missing set); this manager just skips it.
    m.onTopicDeleted('T');
    m.onGroupDeleted('G');
    assert.equal(m.getStatsItem(Stats.GROUP_GET_LATENCY, 'T@G'), undefined);
  });

  test('start samples every set at once and then every 10 s, 10 min and hour; tpsGroupGetNums', () => {
    const { m, clock } = manager();
    m.start();
    clock.advance(0);
    m.incGroupGetNums('G', 'T', 30);
    assert.equal(m.tpsGroupGetNums('G', 'T'), 0, 'not sampled yet');
    clock.advance(10_000);
    assert.equal(m.tpsGroupGetNums('G', 'T'), 3);
    const set = m.getStatsItemSet(Stats.GROUP_GET_NUMS);
    assert.deepEqual(set?.getStatsDataInHour('T@G'), { sum: 0, tps: 0, avgpt: 0, times: 0 });
    clock.advance(600_000 - 10_000);
    // The hour's first sample came at T0 + 10 min: zero snapshot at T0, then 30.
    assert.deepEqual(set?.getStatsDataInHour('T@G'), { sum: 30, tps: 30_000 / 600_000, avgpt: 30, times: 1 });
    // A minute later the minute window no longer holds the add.
    assert.equal(m.tpsGroupGetNums('G', 'T'), 0);
    clock.advance(3_000_000);
    assert.equal(set?.getStatsDataInDay('T@G').sum, 30);
    assert.equal(m.tpsGroupGetNums('G', 'other'), 0);
  });

  test('shutdown stops the sampling', () => {
    const { m, clock } = manager();
    m.start();
    m.start();
    clock.advance(0);
    assert.equal(clock.pending, 3);
    m.shutdown();
    assert.equal(clock.pending, 0);
    m.incTopicPutNums('T', 10, 1);
    clock.advance(60_000);
    assert.equal(m.getStatsItem(Stats.TOPIC_PUT_NUMS, 'T')?.getStatsDataInMinute().sum, 0);
  });

  test('onTopicDeleted and onGroupDeleted drop exactly their keys', () => {
    const { m } = manager();
    for (const [topic, group] of [
      ['T', 'G'],
      ['T', 'G2'],
      ['T2', 'G'],
      ['T2', 'xG'],
    ] as const) {
      m.incTopicPutNums(topic);
      m.incGroupGetNums(group, topic, 1);
      m.incSendBackNums(group, topic);
      m.incGroupGetLatency(group, topic, 0, 1);
      m.incQueuePutNums(topic, 0);
      m.recordDiskFallBehindTime(group, topic, 0, 5);
    }
    const keys = (name: string) => m.getStatsItemSet(name)?.keys() ?? [];
    m.onTopicDeleted('T');
    assert.deepEqual(keys(Stats.TOPIC_PUT_NUMS), ['T2']);
    assert.deepEqual(keys(Stats.GROUP_GET_NUMS), ['T2@G', 'T2@xG']);
    assert.deepEqual(keys(Stats.SNDBCK_PUT_NUMS), ['T2@G', 'T2@xG']);
    assert.deepEqual(keys(Stats.QUEUE_PUT_NUMS), ['T2@0']);
    assert.deepEqual(keys(Stats.GROUP_GET_LATENCY), ['0@T2@G', '0@T2@xG']);
    assert.deepEqual([...m.momentStatsItemSetFallTime.statsItemTable.keys()], ['0@T2@G', '0@T2@xG']);
    m.onGroupDeleted('G');
    assert.deepEqual(keys(Stats.GROUP_GET_NUMS), ['T2@xG']);
    assert.deepEqual(keys(Stats.GROUP_GET_LATENCY), ['0@T2@xG']);
    assert.deepEqual(keys(Stats.TOPIC_PUT_NUMS), ['T2']);
    assert.deepEqual([...m.momentStatsItemSetFallTime.statsItemTable.keys()], ['0@T2@xG']);
  });

  test('moment values are overwritten; commercial values are keyed owner@topic@group@type', () => {
    const { m } = manager();
    m.recordDiskFallBehindSize('G', 'T', 1, 100);
    m.recordDiskFallBehindSize('G', 'T', 1, 40);
    assert.equal(m.momentStatsItemSetFallSize.statsItemTable.get('1@T@G')?.value, 40);
    m.incCommercialValue(Stats.COMMERCIAL_SEND_TIMES, 'o', 'G', 'T', 'SEND_SUCCESS', 2);
    assert.equal(m.getStatsItem(Stats.COMMERCIAL_SEND_TIMES, 'o@T@G@SEND_SUCCESS')?.value, 2);
  });
});

describe('scheduleAtFixedRate', () => {
  test('keeps its phase and skips runs missed in a stall', () => {
    const clock = new ManualClock(T0);
    const runs: number[] = [];
    const h = scheduleAtFixedRate(clock, () => runs.push(clock.now() - T0), 5, 10);
    clock.advance(36);
    assert.deepEqual(runs, [5, 15, 25, 35]);
    h.cancel();
    clock.advance(100);
    assert.deepEqual(runs, [5, 15, 25, 35]);
  });
});

describe('BrokerStats', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  test('record() moves today to yesterday and takes the store totals; at every midnight', () => {
    const root = mkdtempSync(join(tmpdir(), 'rmq-brokerstats-'));
    roots.push(root);
    const clock = new ManualClock(T0);
    const store = new DefaultMessageStore(messageStoreConfig({ storePathRootDir: root }), {
      clock,
      logger: quiet,
    });
    const stats = new BrokerStats(store, clock);
    store.stats.putMessageTimesTotal = 7;
    store.stats.getMessageTransferedMsgCount = 3;
    assert.equal(stats.msgPutTotalTodayNow, 7);
    assert.equal(stats.msgGetTotalTodayNow, 3);
    stats.start();
    const midnight = computeNextMorningTimeMillis(T0);
    assert.ok(midnight > T0 && midnight - T0 <= 86_400_000);
    assert.equal(new Date(midnight).getHours(), 0);
    clock.advance(midnight - T0 - 1);
    assert.equal(stats.msgPutTotalTodayMorning, 0);
    clock.advance(1);
    assert.deepEqual(
      [stats.msgPutTotalYesterdayMorning, stats.msgPutTotalTodayMorning],
      [0, 7],
      'recorded at midnight',
    );
    assert.deepEqual([stats.msgGetTotalYesterdayMorning, stats.msgGetTotalTodayMorning], [0, 3]);
    store.stats.putMessageTimesTotal = 20;
    clock.advance(86_400_000);
    assert.deepEqual([stats.msgPutTotalYesterdayMorning, stats.msgPutTotalTodayMorning], [7, 20]);
    stats.shutdown();
    store.stats.putMessageTimesTotal = 50;
    clock.advance(86_400_000);
    assert.equal(stats.msgPutTotalTodayMorning, 20);
  });

  test('a store other than DefaultMessageStore reports zero', () => {
    const stats = new BrokerStats(new FakeMessageStore(), new ManualClock(T0));
    stats.record();
    assert.deepEqual(
      [stats.msgPutTotalTodayNow, stats.msgGetTotalTodayNow, stats.msgPutTotalTodayMorning],
      [0, 0, 0],
    );
  });
});
