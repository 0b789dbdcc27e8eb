/** `rmq bench` output: upstream's line formats, the figures behind them, the messages sent. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConsumerStats } from '../../../src/cli/bench/consumer-stats.js';
import { LatencyHistogram } from '../../../src/cli/bench/histogram.js';
import {
  MessageBuilder,
  putPairedProperties,
  putSingleProperties,
  randomBody,
} from '../../../src/cli/bench/message-builder.js';
import { ProducerStats } from '../../../src/cli/bench/producer-stats.js';
import {
  consumerIntervalLine,
  javaFixed,
  type ProducerSummary,
  producerCompleteLine,
  producerIntervalLine,
  progressLine,
} from '../../../src/cli/bench/report.js';
import { BenchTerminal } from '../../../src/cli/bench/terminal.js';
import { Message } from '../../../src/common/message/message.js';

test("javaFixed prints as Java's %7.3f, NaN included", () => {
  assert.equal(javaFixed(1.5), '  1.500');
  assert.equal(javaFixed(0), '  0.000');
  assert.equal(javaFixed(12345.6789), '12345.679');
  assert.equal(javaFixed(Number.NaN), '    NaN');
});

test("the producer's interval line is upstream's with the percentiles appended", () => {
  const line = producerIntervalLine({
    nowMs: 1_700_000_000_123,
    sendTps: 12_345.9,
    maxRtMs: 87.6,
    avgRtMs: 5.1234,
    sendFailed: 2,
    responseFailed: 1,
    p50Ms: 4.0961,
    p99Ms: 20.48,
    p999Ms: 60,
  });
  assert.equal(
    line,
    'Current Time: 1700000000123 Send TPS: 12345 Max RT(ms): 88 Average RT(ms):   5.123 Send Failed: 2 ' +
      'Response Failed: 1 p50(ms): 4.096 p99(ms): 20.480 p99.9(ms): 60.000',
  );
});

test('[Complete] counts every message tried and prints the measured figures', () => {
  const summary: ProducerSummary = {
    tool: 'rmq',
    role: 'producer',
    topic: 'T',
    threads: 4,
    inFlight: 4,
    messageSize: 128,
    batchSize: 16,
    measuredMs: 2000,
    sends: 100,
    messages: 1600,
    sendFailed: 1,
    responseFailed: 0,
    tps: 800,
    sendTps: 50,
    avgRtMs: 2.5,
    maxRtMs: 9.4,
    p50Ms: 2,
    p99Ms: 8,
    p999Ms: 9,
  };
  assert.equal(
    producerCompleteLine(summary, 16),
    '[Complete] Send Total: 1616 Send TPS: 800 Max RT(ms): 9 Average RT(ms):   2.500 Send Failed: 1 ' +
      'Response Failed: 0 p50(ms): 2.000 p99(ms): 8.000 p99.9(ms): 9.000',
  );
});

test("the consumer's interval line is upstream's with p99(S2C) appended", () => {
  assert.equal(
    consumerIntervalLine({
      nowMs: 1_700_000_000_000,
      tps: 999.99,
      fail: 3,
      avgB2CMs: 1.25,
      avgS2CMs: Number.NaN,
      maxB2CMs: 12,
      maxS2CMs: 11,
      p99S2CMs: 10.5,
    }),
    'Current Time: 1700000000000 TPS: 999 FAIL: 3 AVG(B2C) RT(ms):   1.250 AVG(S2C) RT(ms):     NaN ' +
      'MAX(B2C) RT(ms): 12 MAX(S2C) RT(ms): 11 p99(S2C)(ms): 10.500',
  );
});

test('the histogram reads microseconds out as milliseconds', () => {
  const h = new LatencyHistogram();
  assert.equal(h.percentileMs(99), 0);
  for (let i = 1; i <= 1000; i++) h.recordMicros(i * 1000);
  assert.equal(h.count, 1000);
  assert.ok(Math.abs(h.percentileMs(50) - 500) <= 0.5, String(h.percentileMs(50)));
  assert.ok(Math.abs(h.percentileMs(99) - 990) <= 1, String(h.percentileMs(99)));
  h.recordMicros(-5);
  assert.equal(h.count, 1001);
  h.reset();
  assert.equal(h.count, 0);
});

const SHAPE = { topic: 'T', threadCount: 2, inFlight: 2, messageSize: 10, batchSize: 1 };

test('producer intervals: rate and mean over the interval, max and failures since the start', () => {
  const stats = new ProducerStats(0, SHAPE);
  stats.startMeasuring(0);
  stats.recordSuccess(10, 2000, 1);
  stats.recordSuccess(20, 4000, 1);
  stats.recordFailure(30, 'send', 1);
  const first = stats.interval(1000, 42);
  assert.equal(first.nowMs, 42);
  assert.equal(first.sendTps, 2);
  assert.equal(first.avgRtMs, 3);
  assert.equal(first.maxRtMs, 4);
  assert.equal(first.sendFailed, 1);
  assert.ok(Math.abs(first.p99Ms - 4) < 0.01);
  const second = stats.interval(2000, 43);
  assert.equal(second.sendTps, 0);
  assert.ok(Number.isNaN(second.avgRtMs), 'no send in the interval: NaN, as Java prints 0/0');
  assert.equal(second.maxRtMs, 4, 'upstream never resets Max RT');
  assert.equal(second.sendFailed, 1, 'upstream prints running failure totals');
  assert.equal(second.p50Ms, 0);
});

test('producer summary: only sends begun after the warm-up, over the measured time', () => {
  const stats = new ProducerStats(0, { ...SHAPE, batchSize: 4 });
  stats.recordSuccess(100, 50_000, 4);
  stats.startMeasuring(1000);
  stats.recordSuccess(999, 60_000, 4);
  stats.recordSuccess(1000, 1000, 4);
  stats.recordSuccess(1500, 3000, 4);
  stats.recordFailure(1600, 'response', 4);
  const s = stats.summary(3000);
  assert.equal(s.measuredMs, 2000);
  assert.equal(s.sends, 2);
  assert.equal(s.messages, 8);
  assert.equal(s.responseFailed, 1);
  assert.equal(s.sendFailed, 0);
  assert.equal(s.tps, 4);
  assert.equal(s.sendTps, 1);
  assert.equal(s.avgRtMs, 2);
  assert.equal(s.maxRtMs, 3);
  assert.equal(stats.measuredFailedMessages, 4);
  assert.equal(stats.sends, 4, 'the exit code looks at every send, warm-up included');
  assert.deepEqual(Object.keys(s), [
    'tool',
    'role',
    'topic',
    'threads',
    'inFlight',
    'messageSize',
    'batchSize',
    'measuredMs',
    'sends',
    'messages',
    'sendFailed',
    'responseFailed',
    'tps',
    'sendTps',
    'avgRtMs',
    'maxRtMs',
    'p50Ms',
    'p99Ms',
    'p999Ms',
  ]);
});

test('consumer intervals reset their maxima; the summary counts after the warm-up', () => {
  const stats = new ConsumerStats(0, { topic: 'T', group: 'g' });
  stats.recordMessage(10, 10_000, 9_990, 9_995);
  stats.startMeasuring(500);
  stats.recordMessage(600, 10_000, 9_900, 9_950);
  stats.recordMessage(700, 10_000, 10_010, 10_005);
  stats.recordFailed(700, 1);
  const first = stats.interval(1000, 7);
  assert.equal(first.tps, 3);
  assert.equal(first.fail, 1);
  assert.equal(first.avgB2CMs, (10 + 100 + 0) / 3, 'a born time ahead of the clock counts as 0');
  assert.equal(first.maxB2CMs, 100);
  assert.equal(first.maxS2CMs, 50);
  const second = stats.interval(2000, 8);
  assert.equal(second.maxB2CMs, 0, 'upstream resets the maxima at each print');
  assert.ok(Number.isNaN(second.avgS2CMs));
  const s = stats.summary(1500);
  assert.equal(s.measuredMs, 1000);
  assert.equal(s.messages, 2);
  assert.equal(s.failed, 1);
  assert.equal(s.tps, 2);
  assert.equal(s.avgS2CMs, 25);
  assert.equal(s.maxB2CMs, 100);
  assert.deepEqual(Object.keys(s), [
    'tool',
    'role',
    'topic',
    'group',
    'measuredMs',
    'messages',
    'failed',
    'tps',
    'avgB2CMs',
    'avgS2CMs',
    'maxB2CMs',
    'maxS2CMs',
    'p99S2CMs',
  ]);
});

test('the live line is drawn in place on a terminal only', () => {
  const written: string[] = [];
  const io = { out: (t: string) => written.push(t), err: () => undefined };
  const figures = { elapsedS: 3, total: 300, ratePerS: 100.7, avgMs: 1.5, failed: 0 };
  const pipe = new BenchTerminal(io, false);
  pipe.progress(progressLine('producer', figures));
  pipe.line('a line');
  assert.deepEqual(written, ['a line\n']);
  written.length = 0;
  const tty = new BenchTerminal(io, true);
  tty.progress(progressLine('producer', figures));
  tty.line('next');
  assert.deepEqual(written, [
    '\r[producer] 3 s  sent 300  100 msg/s  avg RT 1.500 ms  failed 0\x1b[K',
    '\r\x1b[K',
    'next\n',
  ]);
});

test('messages as upstream builds them: fixed body, keys in seconds, tags in turn, delay', () => {
  const body = randomBody(64);
  assert.equal(body.length, 64);
  assert.match(body.toString('latin1'), /^[A-Za-z0-9]{64}$/);
  const builder = new MessageBuilder({
    topic: 'T',
    body,
    keyEnable: true,
    tagCount: 3,
    delayLevel: 2,
    propertySize: 0,
  });
  const msgs = [builder.single(1_700_000_001_999), builder.single(0), builder.single(0), builder.single(0)];
  assert.deepEqual(
    msgs.map((m) => m.tags),
    ['tag0', 'tag1', 'tag2', 'tag0'],
  );
  assert.equal(msgs[0]?.keys, '1700000001');
  assert.equal(msgs[0]?.delayTimeLevel, 2);
  assert.equal(msgs[0]?.body, body, 'one body shared by every message');
  assert.notEqual(msgs[0], msgs[1], 'a fresh message per send');
  const batch = builder.batch(3, 0);
  assert.equal(batch.length, 3);
  assert.deepEqual(
    batch.map((m) => m.tags),
    ['tag1', 'tag2', 'tag0'],
  );
  assert.equal(batch[0]?.delayTimeLevel, 0, 'a batch carries no delay level');
});

test("property filler: Producer's pairs and BatchProducer's singles just exceed the size", () => {
  const paired = new Message('T', Buffer.from('x'));
  putPairedProperties(paired, 40, 7);
  assert.equal(paired.getUserProperty('prop0'), 'hello7');
  assert.equal(paired.getUserProperty('prop1'), '7');
  assert.equal(paired.getUserProperty('prop2'), 'hello9');
  assert.equal(paired.getUserProperty('prop3'), '9');
  const single = new Message('T', Buffer.from('x'));
  putSingleProperties(single, 40, 7);
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => single.getUserProperty(`prop${i}`)),
    ['hello7', 'hello8', 'hello9', 'hello10'],
  );
  for (const msg of [paired, single]) {
    let size = 0;
    for (const [name, value] of msg.properties) {
      if (name.startsWith('prop')) size += name.length + value.length;
    }
    assert.ok(size > 40, `${size}`);
  }
});
