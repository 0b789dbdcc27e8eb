/**
 * StoreStats as upstream's StoreStatsService: the put-time histogram's ranges, the minute rotation,
 * the latency percentiles, the TPS windows and the runtime info's strings, on a hand-driven clock.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { diskPartitionSpaceUsedPercent, diskSpace } from '../../../src/store/disk-usage.js';
import { StoreStats } from '../../../src/store/store-stats.js';

const T0 = 1_700_000_000_000;

function started(): { stats: StoreStats; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const stats = new StoreStats();
  stats.start(clock);
  return { stats, clock };
}

/** The histogram text with the given counts per range (the rest 0). */
function histogram(counts: Record<number, number>): string {
  const desc = [
    '[<=0ms]',
    '[0~10ms]',
    '[10~50ms]',
    '[50~100ms]',
    '[100~200ms]',
    '[200~500ms]',
    '[500ms~1s]',
    '[1~2s]',
    '[2~3s]',
    '[3~4s]',
    '[4~5s]',
    '[5~10s]',
    '[10s~]',
  ];
  return desc.map((d, i) => `${d}:${counts[i] ?? 0} `).join('');
}

describe('StoreStats', () => {
  test('the histogram ranges are upstream’s, reported once a minute has passed', () => {
    const { stats, clock } = started();
    for (const ms of [-3, 0, 1, 9, 10, 49, 50, 99, 100, 199, 200, 499, 500, 999, 1000, 1999, 2000, 2999]) {
      stats.recordPutTime(ms);
    }
    for (const ms of [3000, 3999, 4000, 4999, 5000, 9999, 10000, 60000]) stats.recordPutTime(ms);
    assert.equal(stats.putMessageEntireTimeMax, 60000);
    assert.equal(stats.getRuntimeInfo().get('putMessageDistributeTime'), 'null');
    clock.advance(60_000);
    assert.equal(stats.getRuntimeInfo().get('putMessageDistributeTime'), 'null', 'not past the minute yet');
    clock.advance(1000);
    const first = histogram({
      0: 2,
      1: 2,
      2: 2,
      3: 2,
      4: 2,
      5: 2,
      6: 2,
      7: 2,
      8: 2,
      9: 2,
      10: 2,
      11: 2,
      12: 2,
    });
    assert.equal(stats.getRuntimeInfo().get('putMessageDistributeTime'), first);
    // The next minute's puts show once it is over.
    stats.recordPutTime(15);
    clock.advance(60_000);
    assert.equal(stats.getRuntimeInfo().get('putMessageDistributeTime'), first);
    clock.advance(1000);
    assert.equal(stats.getRuntimeInfo().get('putMessageDistributeTime'), histogram({ 2: 1 }));
  });

  test('latency percentiles interpolate inside the bucket (findPutMessageEntireTimePX)', () => {
    const { stats, clock } = started();
    // 90 puts of 0-1 ms, 10 of 30 ms (bucket 28..30).
    for (let i = 0; i < 90; i++) stats.recordPutTime(1);
    for (let i = 0; i < 10; i++) stats.recordPutTime(30);
    assert.equal(stats.putLatency(0.99), 0, 'nothing rotated yet');
    clock.advance(61_000);
    // index 99: past the 90 in the first bucket, 9 of 10 into (28, 30].
    assert.equal(stats.putLatency(0.99), 28 + (2 * 9) / 10);
    assert.equal(stats.getRuntimeInfo().get('putLatency99'), '29.80');
    assert.equal(stats.putLatency(0.5), (1 * 50) / 90);
    assert.equal(stats.getRuntimeInfo().get('putLatency999'), '29.80');
  });

  test('TPS over 10, 60 and 600 samples, each empty until there are that many', () => {
    const { stats, clock } = started();
    clock.advance(1000);
    assert.equal(stats.getRuntimeInfo().get('putTps'), '  ');
    for (let i = 0; i < 10; i++) {
      stats.putMessageTimesTotal += 5;
      stats.getMessageTimesTotalFound += 1;
      stats.getMessageTimesTotalMiss += 2;
      clock.advance(1000);
    }
    const info = stats.getRuntimeInfo();
    assert.equal(info.get('putTps'), '5.0  ');
    assert.equal(info.get('getFoundTps'), '1.0  ');
    assert.equal(info.get('getMissTps'), '2.0  ');
    assert.equal(info.get('getTotalTps'), '3.0 0.0 0.0');
    assert.equal(info.get('getTransferedTps'), '0.0  ');
    // 601 samples are kept: the first, before any put, is still there after 590 more.
    clock.advance(590_000);
    assert.equal(stats.getRuntimeInfo().get('putTps'), `0.0 0.0 ${String((50 / 600_000) * 1000)}`);
    // One more: the oldest kept sample is now the one after the first 5 puts.
    clock.advance(1000);
    assert.equal(stats.getRuntimeInfo().get('putTps'), '0.0 0.0 0.075');
  });

  test('runtime, averages and totals as upstream writes them', () => {
    const { stats, clock } = started();
    assert.equal(stats.getRuntimeInfo().get('putMessageTimesTotal'), '1');
    assert.equal(stats.getRuntimeInfo().get('putMessageAverageSize'), '0.0');
    stats.putMessageTimesTotal = 3;
    stats.putMessageSizeTotal = 1000;
    stats.shutdown();
    assert.equal(clock.pending, 0);
    clock.advance(1000 * (86_400 * 1234 + 3600 * 5 + 60 * 7 + 9) + 999);
    const info = stats.getRuntimeInfo();
    assert.equal(info.get('runtime'), '[ 1,234 days, 5 hours, 7 minutes, 9 seconds ]');
    assert.equal(info.get('putMessageTimesTotal'), '3');
    assert.equal(info.get('putMessageAverageSize'), '333.3333333333333');
    assert.equal(info.get('bootTimestamp'), String(T0));
    assert.equal(info.size, 17);
  });
});

describe('disk usage', () => {
  test('a missing or blank path is -1, an existing one a ratio in hundredths', () => {
    assert.equal(diskPartitionSpaceUsedPercent(''), -1);
    assert.equal(diskPartitionSpaceUsedPercent('/no/such/dir/for/rmq'), -1);
    assert.equal(diskSpace('/no/such/dir/for/rmq'), undefined);
    const r = diskPartitionSpaceUsedPercent('.');
    assert.ok(r >= 0 && r <= 1, String(r));
    assert.equal(Math.round(r * 100) / 100, r);
    const s = diskSpace('.');
    assert.ok(s !== undefined && s.total >= s.free && s.free >= s.usable);
  });
});
