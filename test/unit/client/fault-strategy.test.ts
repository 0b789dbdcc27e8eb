/**
 * Latency fault tolerance (upstream MQFaultStrategy and LatencyFaultToleranceImpl 4.9.8) on a
 * ManualClock: how long a broker is avoided after a slow or failed send, which broker is tried when
 * every one is avoided, and that none of it happens unless sendLatencyFaultEnable is set.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { topicRouteData2TopicPublishInfo } from '../../../src/client/instance/topic-route.js';
import { LatencyFaultTolerance } from '../../../src/client/producer/latency-fault-tolerance.js';
import {
  DEFAULT_LATENCY_MAX,
  DEFAULT_NOT_AVAILABLE_DURATION,
  MQFaultStrategy,
} from '../../../src/client/producer/mq-fault-strategy.js';
import { DEFAULT_PRODUCER_OPTIONS } from '../../../src/client/producer/producer-options.js';
import { SendQueueIndex, type TopicPublishInfo } from '../../../src/client/producer/topic-publish-info.js';
import { ManualClock } from '../../../src/common/clock.js';
import type { TopicRouteData } from '../../../src/common/protocol/route.js';

function strategy(clock: ManualClock, enabled = true): MQFaultStrategy {
  return new MQFaultStrategy(
    {
      sendLatencyFaultEnable: enabled,
      latencyMax: DEFAULT_LATENCY_MAX,
      notAvailableDuration: DEFAULT_NOT_AVAILABLE_DURATION,
    },
    clock,
  );
}

/** By default brokers a (2 queues), b (2 queues), c (4 queues), all writable masters. */
function publishInfo(
  start = 0,
  brokers: Array<[string, number]> = [
    ['a', 2],
    ['b', 2],
    ['c', 4],
  ],
): TopicPublishInfo {
  const route: TopicRouteData = {
    queueDatas: brokers.map(([brokerName, n]) => ({
      brokerName,
      readQueueNums: n,
      writeQueueNums: n,
      perm: 6,
      topicSysFlag: 0,
    })),
    brokerDatas: brokers.map(([brokerName], i) => ({
      cluster: 'c1',
      brokerName,
      brokerAddrs: new Map([[0, `10.0.0.${i + 1}:10911`]]),
    })),
    filterServerTable: new Map(),
  };
  return topicRouteData2TopicPublishInfo('T', route, new SendQueueIndex(start));
}

/** How long a broker stays unavailable after a send of `latency` ms, measured on the clock. */
function isolationOf(latency: number, isolation = false): number {
  const clock = new ManualClock();
  const s = strategy(clock);
  s.updateFaultItem('a', latency, isolation);
  const lft = s.latencyFaultTolerance;
  let waited = 0;
  while (!lft.isAvailable('a')) {
    clock.advance(1000);
    waited += 1000;
  }
  return waited;
}

describe('isolation by latency', () => {
  test("upstream's tables are the defaults", () => {
    assert.deepEqual([...DEFAULT_LATENCY_MAX], [50, 100, 550, 1000, 2000, 3000, 15000]);
    assert.deepEqual([...DEFAULT_NOT_AVAILABLE_DURATION], [0, 0, 30000, 60000, 120000, 180000, 600000]);
    assert.equal(DEFAULT_PRODUCER_OPTIONS.sendLatencyFaultEnable, false);
  });

  test('each latency step isolates for its duration', () => {
    const expected: Array<[number, number]> = [
      [0, 0],
      [49, 0],
      [50, 0],
      [549, 0],
      [550, 30000],
      [999, 30000],
      [1000, 60000],
      [2000, 120000],
      [2999, 120000],
      [3000, 180000],
      [14999, 180000],
      [15000, 600000],
      [100000, 600000],
    ];
    for (const [latency, duration] of expected)
      assert.equal(isolationOf(latency), duration, `latency ${latency}`);
  });

  test('a failed send counts as 30 s of latency: ten minutes', () => {
    assert.equal(isolationOf(5, true), 600000);
  });

  test('available again exactly at the end of the isolation', () => {
    const clock = new ManualClock();
    const s = strategy(clock);
    s.updateFaultItem('a', 600, false);
    clock.advance(29_999);
    assert.equal(s.latencyFaultTolerance.isAvailable('a'), false);
    clock.advance(1);
    assert.equal(s.latencyFaultTolerance.isAvailable('a'), true);
    // A later fast send clears it at once.
    s.updateFaultItem('b', 20_000, false);
    s.updateFaultItem('b', 10, false);
    assert.equal(s.latencyFaultTolerance.isAvailable('b'), true);
  });

  test('own tables are used when given', () => {
    const clock = new ManualClock();
    const s = new MQFaultStrategy(
      { sendLatencyFaultEnable: true, latencyMax: [10, 20], notAvailableDuration: [5, 7] },
      clock,
    );
    s.updateFaultItem('a', 15, false);
    clock.advance(4);
    assert.equal(s.latencyFaultTolerance.isAvailable('a'), false);
    clock.advance(1);
    assert.equal(s.latencyFaultTolerance.isAvailable('a'), true);
  });
});

describe('queue choice', () => {
  test('disabled (the default): plain round robin avoiding the last broker, no fault items', () => {
    const clock = new ManualClock();
    const s = strategy(clock, false);
    s.updateFaultItem('a', 0, true);
    assert.equal(s.latencyFaultTolerance.isAvailable('a'), true);
    assert.equal(s.latencyFaultTolerance.pickOneAtLeast(), undefined);
    const info = publishInfo(0);
    const picked = Array.from({ length: 8 }, () => s.selectOneMessageQueue(info, undefined).brokerName);
    assert.deepEqual(picked, ['a', 'b', 'b', 'c', 'c', 'c', 'c', 'a']);
    for (let i = 0; i < 10; i++) assert.notEqual(s.selectOneMessageQueue(info, 'c').brokerName, 'c');
  });

  test('enabled: isolated brokers are skipped until they come back', () => {
    const clock = new ManualClock();
    const s = strategy(clock);
    const info = publishInfo(5);
    s.updateFaultItem('a', 0, true);
    s.updateFaultItem('c', 1000, false);
    for (let i = 0; i < 12; i++) assert.equal(s.selectOneMessageQueue(info, undefined).brokerName, 'b');
    clock.advance(60_000);
    const seen = new Set(
      Array.from({ length: 16 }, () => s.selectOneMessageQueue(info, undefined).brokerName),
    );
    assert.deepEqual([...seen].sort(), ['b', 'c']);
    clock.advance(540_000);
    const all = new Set(
      Array.from({ length: 16 }, () => s.selectOneMessageQueue(info, undefined).brokerName),
    );
    assert.deepEqual([...all].sort(), ['a', 'b', 'c']);
  });

  test('enabled, every broker isolated: one of the better half, with a queue it has', () => {
    const clock = new ManualClock();
    const s = strategy(clock);
    const info = publishInfo(0);
    s.updateFaultItem('a', 3000, false); // 180 s
    s.updateFaultItem('b', 1000, false); // 60 s, lowest latency
    s.updateFaultItem('c', 5000, true); // 600 s
    for (let i = 0; i < 10; i++) {
      const mq = s.selectOneMessageQueue(info, undefined);
      // Three items: the better half is the first one (lowest latency among the unavailable).
      assert.equal(mq.brokerName, 'b');
      assert.ok(mq.queueId >= 0 && mq.queueId < 2, `queue ${mq.queueId}`);
      assert.equal(mq.topic, 'T');
    }
  });

  test('enabled, the picked broker is not in the route: forgotten, round robin instead', () => {
    const clock = new ManualClock();
    const s = strategy(clock);
    const info = publishInfo(0, [['a', 2]]);
    s.updateFaultItem('a', 10, true);
    s.updateFaultItem('gone', 10, false);
    // 'gone' is available, so it sorts first, but the route has no queue of it: it is forgotten and
    // the round robin picks a queue of 'a' anyway.
    const mq = s.selectOneMessageQueue(info, undefined);
    assert.equal(mq.brokerName, 'a');
    assert.equal(s.latencyFaultTolerance.pickOneAtLeast(), 'a');
  });
});

describe('pickOneAtLeast', () => {
  test('empty table: nothing; one item: that one', () => {
    const clock = new ManualClock();
    const lft = new LatencyFaultTolerance(clock);
    assert.equal(lft.pickOneAtLeast(), undefined);
    lft.updateFaultItem('x', 100, 10);
    assert.equal(lft.pickOneAtLeast(), 'x');
  });

  test('available first, then lower latency, then sooner back; turns over the better half', () => {
    const clock = new ManualClock();
    const lft = new LatencyFaultTolerance(clock);
    lft.updateFaultItem('slow-soon', 500, 100);
    lft.updateFaultItem('fast-late', 10, 10_000);
    lft.updateFaultItem('fast-soon', 10, 1_000);
    lft.updateFaultItem('back', 9_999, 0);
    // Sorted: back (available), fast-soon, fast-late, slow-soon -> better half = back, fast-soon.
    const picks = new Set(Array.from({ length: 8 }, () => lft.pickOneAtLeast()));
    assert.deepEqual([...picks].sort(), ['back', 'fast-soon']);
    lft.remove('back');
    // Three left: half is 1, always the first.
    for (let i = 0; i < 4; i++) assert.equal(lft.pickOneAtLeast(), 'fast-soon');
    clock.advance(100);
    // slow-soon is available now and sorts first.
    for (let i = 0; i < 4; i++) assert.equal(lft.pickOneAtLeast(), 'slow-soon');
  });
});
