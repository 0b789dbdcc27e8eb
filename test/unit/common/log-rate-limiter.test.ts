import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { LogRateLimiter } from '../../../src/common/log-rate-limiter.js';

test('one line per key per interval; the next line reports how many were dropped', () => {
  const clock = new ManualClock();
  const limiter = new LogRateLimiter(1000, () => clock.now());
  assert.equal(limiter.take('a'), 0);
  assert.equal(limiter.take('a'), undefined);
  assert.equal(limiter.take('a'), undefined);
  assert.equal(limiter.take('b'), 0, 'keys are limited apart');
  clock.advance(999);
  assert.equal(limiter.take('a'), undefined);
  clock.advance(1);
  assert.equal(limiter.take('a'), 3);
  assert.equal(limiter.take('a'), undefined);
  clock.advance(5000);
  assert.equal(limiter.take('a'), 1);
  assert.equal(limiter.take('b'), 0);
});

test('interval 0 lets every line through', () => {
  const limiter = new LogRateLimiter(0, () => 5);
  assert.equal(limiter.take('a'), 0);
  assert.equal(limiter.take('a'), 0);
});
