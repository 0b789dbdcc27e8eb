/**
 * ConsumerStatsManager on a hand-driven clock: upstream's `topic@group` keys, the minute windows of
 * pull RT/TPS and consume OK/failed TPS, consume RT falling back to the hour when the minute saw
 * nothing, failed messages over the hour, and sampling that starts with start() and stops on
 * shutdown().
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConsumerStatsManager } from '../../../src/client/consumer/stats/consumer-stats-manager.js';
import { ManualClock } from '../../../src/common/clock.js';
import { emptyConsumeStatus } from '../../../src/common/protocol/consume-status.js';

const T0 = 1_700_000_000_000;
const G = 'cg';
const T = 'TopicTest';

function started(): { stats: ConsumerStatsManager; clock: ManualClock } {
  const clock = new ManualClock(T0);
  const stats = new ConsumerStatsManager(clock);
  stats.start();
  // The first samples run right away, before anything is counted.
  clock.advance(0);
  return { stats, clock };
}

describe('ConsumerStatsManager', () => {
  test('nothing counted: every figure 0, for any group and topic', () => {
    const { stats, clock } = started();
    clock.advance(3_600_000);
    assert.deepEqual(stats.consumeStatus(G, T), emptyConsumeStatus());
    stats.shutdown();
  });

  test("keys are upstream's topic@group, one item per pair", () => {
    const { stats } = started();
    stats.incPullRT(G, T, 5);
    stats.incPullTPS('other', T, 3);
    assert.equal(stats.topicAndGroupPullRT.keys().join(), `${T}@${G}`);
    assert.equal(stats.topicAndGroupPullTPS.keys().join(), `${T}@other`);
    assert.equal(stats.topicAndGroupPullRT.getStatsItem(`${T}@${G}`)?.rt, true, 'RT sets hold RT items');
    assert.equal(stats.topicAndGroupPullTPS.getStatsItem(`${T}@other`)?.rt, false);
    stats.shutdown();
  });

  test('pull RT is the average per pull and pull TPS messages per second over the minute', () => {
    const { stats, clock } = started();
    // Items made after start() are first sampled at the next 10 s tick: a zero 10 s back, then now.
    stats.incPullRT(G, T, 10);
    stats.incPullRT(G, T, 20);
    stats.incPullRT(G, T, 60);
    stats.incPullTPS(G, T, 32);
    stats.incPullTPS(G, T, 8);
    clock.advance(10_000);
    const s = stats.consumeStatus(G, T);
    assert.equal(s.pullRT, 30);
    assert.equal(s.pullTPS, 4);
    // Another group on the same topic is its own key.
    assert.equal(stats.consumeStatus('other', T).pullRT, 0);
    stats.shutdown();
  });

  test('OK and failed TPS over the last minute (7 snapshots, 60 s); failed messages over the hour', () => {
    const { stats, clock } = started();
    for (let i = 0; i < 6; i++) {
      stats.incConsumeOKTPS(G, T, 10);
      stats.incConsumeFailedTPS(G, T, 1);
      clock.advance(10_000);
    }
    let s = stats.consumeStatus(G, T);
    assert.equal(s.consumeOKTPS, 1);
    assert.equal(s.consumeFailedTPS, 0.1);
    // The hour has no 10-minute sample of these items yet.
    assert.equal(s.consumeFailedMsgs, 0n);
    // A minute later with nothing consumed, the minute window is flat; at the first 10-minute
    // sample the hour holds the 6 failures.
    clock.advance(60_000);
    s = stats.consumeStatus(G, T);
    assert.equal(s.consumeOKTPS, 0);
    assert.equal(s.consumeFailedTPS, 0);
    clock.advance(600_000 - 120_000);
    assert.equal(stats.consumeStatus(G, T).consumeFailedMsgs, 6n);
    stats.shutdown();
  });

  test('consume RT: the minute average, or the hour average when the minute saw no consumption', () => {
    const { stats, clock } = started();
    stats.incConsumeRT(G, T, 100);
    stats.incConsumeRT(G, T, 300);
    clock.advance(10_000);
    assert.equal(stats.consumeStatus(G, T).consumeRT, 200);
    // After 70 s the minute's 7 snapshots no longer reach back to the adds, and the hour has not been
    // sampled since the item was made: 0.
    clock.advance(70_000);
    assert.equal(stats.consumeStatus(G, T).consumeRT, 0);
    // At 10 min the hour window holds them: the minute is empty, so the hour's average is reported.
    clock.advance(600_000 - 80_000);
    assert.equal(stats.consumeStatus(G, T).consumeRT, 200);
    // A new consumption in the minute wins over the hour.
    stats.incConsumeRT(G, T, 50);
    clock.advance(10_000);
    assert.equal(stats.consumeStatus(G, T).consumeRT, 50);
    stats.shutdown();
  });

  test('values are narrowed to a Java int before being added, as upstream casts them', () => {
    const { stats, clock } = started();
    stats.incPullTPS(G, T, 2 ** 32 + 50);
    clock.advance(10_000);
    assert.equal(stats.consumeStatus(G, T).pullTPS, 5);
    stats.shutdown();
  });

  test('start() schedules the three samplers once; shutdown() cancels them and figures stay readable', () => {
    const clock = new ManualClock(T0);
    const stats = new ConsumerStatsManager(clock);
    assert.equal(clock.pending, 0, 'nothing runs before start()');
    stats.start();
    stats.start();
    assert.equal(clock.pending, 3);
    clock.advance(0);
    stats.incConsumeOKTPS(G, T, 50);
    clock.advance(10_000);
    assert.equal(stats.consumeStatus(G, T).consumeOKTPS, 5);
    stats.shutdown();
    assert.equal(clock.pending, 0);
    // No sampling after shutdown: the window does not move.
    stats.incConsumeOKTPS(G, T, 50);
    clock.advance(60_000);
    assert.equal(stats.consumeStatus(G, T).consumeOKTPS, 5);
    stats.shutdown();
    // A restart samples again.
    stats.start();
    clock.advance(10_000);
    assert.notEqual(stats.consumeStatus(G, T).consumeOKTPS, 5);
    stats.shutdown();
    assert.equal(clock.pending, 0);
  });
});
