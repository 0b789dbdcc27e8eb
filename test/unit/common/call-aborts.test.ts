/**
 * Per-call abort signals: the caller's signal and shutdown reach a call; nothing stays attached to a
 * long-lived signal once the calls settle; a signal shared by many calls carries one listener.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { CallAborts, forwardAbort } from '../../../src/common/call-aborts.js';

test("forwardAbort: the caller's reason reaches the call; release removes the only listener", () => {
  const caller = new AbortController();
  const calls = Array.from({ length: 30 }, () => new AbortController());
  const unlinks = calls.map((c) => forwardAbort(caller.signal, c));
  assert.equal(getEventListeners(caller.signal, 'abort').length, 1, 'one listener for 30 calls');
  for (const unlink of unlinks.slice(1)) unlink();
  unlinks[1]?.();
  assert.equal(getEventListeners(caller.signal, 'abort').length, 1, 'the first call is still linked');
  const reason = new Error('stop');
  caller.abort(reason);
  assert.equal(calls[0]?.signal.reason, reason);
  assert.equal(calls[1]?.signal.aborted, false, 'a released call is not aborted');
  unlinks[0]?.();
  assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
});

test('forwardAbort: an already aborted signal aborts at once; no signal links nothing', () => {
  const to = new AbortController();
  forwardAbort(AbortSignal.abort('gone'), to)();
  assert.equal(to.signal.reason, 'gone');
  const other = new AbortController();
  forwardAbort(undefined, other)();
  assert.equal(other.signal.aborted, false);
});

test('CallAborts: abortAll ends the calls in flight and every later one; released calls are forgotten', () => {
  const aborts = new CallAborts();
  const caller = new AbortController();
  const done = aborts.begin(caller.signal);
  const running = aborts.begin();
  done.release();
  assert.equal(aborts.size, 1);
  assert.equal(getEventListeners(caller.signal, 'abort').length, 0);
  const reason = new Error('shutdown');
  aborts.abortAll(reason);
  assert.equal(running.signal.reason, reason);
  assert.equal(done.signal.aborted, false);
  assert.equal(aborts.size, 0);
  assert.equal(aborts.begin().signal.reason, reason, 'a call after shutdown is aborted at once');
});
