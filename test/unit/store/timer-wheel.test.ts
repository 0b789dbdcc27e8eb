/** The pure parts of the timer store: the wheel, the tag code, the precision snap and the checkpoint codec. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTimerCheckpoint, encodeTimerCheckpoint } from '../../../src/store/timer/timer-checkpoint.js';
import { snapTimerPrecisionMs, timerTagsCode } from '../../../src/store/timer/timer-config.js';
import { TimerWheel } from '../../../src/store/timer/timer-wheel.js';

test('wheel: entries go to their slot, late ones to the read slot; take empties a slot', () => {
  const wheel = new TimerWheel(1000);
  assert.equal(wheel.add(0, 5_500, 3), 5);
  assert.equal(wheel.add(1, 5_999, 3), 5);
  assert.equal(wheel.add(2, 1_200, 3), 3, 'due before the read slot: joins it');
  assert.equal(wheel.add(3, 7_000, 3), 7);
  assert.equal(wheel.size, 4);
  assert.equal(wheel.countAt(5), 2);
  assert.equal(wheel.lowestOffset(), 0);
  assert.equal(wheel.firstSlot(), 3);
  const late = wheel.peek(3);
  assert.equal(late?.minTagsCode, 1_200);
  const five = wheel.take(5);
  assert.deepEqual(Array.from(five?.offsets.subarray(0, five.length) ?? []), [0, 1]);
  assert.equal(wheel.size, 2);
  assert.equal(wheel.take(5), undefined);
  assert.equal(wheel.lowestOffset(), 2);
  wheel.clear();
  assert.equal(wheel.size, 0);
  assert.equal(wheel.lowestOffset(), Number.POSITIVE_INFINITY);
});

test('wheel: a bucket grows past its first capacity and keeps queue order', () => {
  const wheel = new TimerWheel(100);
  for (let i = 0; i < 1000; i++) wheel.add(i, 250, 0);
  const bucket = wheel.take(2);
  assert.equal(bucket?.length, 1000);
  assert.ok((bucket?.offsets.length ?? 0) >= 1000);
  for (let i = 0; i < 1000; i++) assert.equal(bucket?.offsets[i], i);
});

test('timerTagsCode: TIMER_OUT_MS, never before the store time; malformed means now', () => {
  assert.equal(timerTagsCode('TIMER_OUT_MS\u00015000\u0002', 1000), 5000n);
  assert.equal(timerTagsCode('TIMER_OUT_MS\u0001500\u0002', 1000), 1000n);
  assert.equal(timerTagsCode('TIMER_OUT_MS\u0001x\u0002', 1000), 1000n);
  assert.equal(timerTagsCode('TAGS\u0001a', 1000), 1000n);
});

test('timerPrecisionMs snaps to 100, 200, 500 or 1000 as upstream setTimerPrecisionMs', () => {
  assert.deepEqual(
    [1, 99, 100, 199, 200, 499, 500, 999, 1000, 5000].map(snapTimerPrecisionMs),
    [100, 100, 100, 100, 200, 200, 500, 500, 1000, 1000],
  );
});

test('checkpoint codec: round trip; wrong shapes refused naming the file', () => {
  const c = { queueOffset: 10, deliveredUpToMs: 1_700_000_000_000, lowestPendingOffset: 4 };
  assert.deepEqual(decodeTimerCheckpoint(encodeTimerCheckpoint(c), 'f'), c);
  assert.throws(() => decodeTimerCheckpoint('{', 'cp.json'), /cp\.json is not JSON/);
  assert.throws(() => decodeTimerCheckpoint('{"queueOffset":1}', 'cp.json'), /not a timer checkpoint/);
  assert.throws(
    () => decodeTimerCheckpoint('{"queueOffset":1,"deliveredUpToMs":0,"lowestPendingOffset":2}', 'cp.json'),
    /not a timer checkpoint/,
  );
});
