/**
 * ConsumeRequestCache, the pulled batches waiting for poll: first in, first out; take waits for a
 * batch up to its timeout on the consumer's clock (a ManualClock here); putFirst puts a batch back
 * in front; removeQueue drops one queue's batches (a seek); wakeAll ends every wait (shutdown).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, test } from 'node:test';
import {
  type ConsumeRequest,
  ConsumeRequestCache,
} from '../../../../src/client/consumer/lite/consume-request-cache.js';
import { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { MessageExt } from '../../../../src/common/message/message.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { RemotingAbortedError } from '../../../../src/remoting/transport/errors.js';

const q0 = new MessageQueue('T', 'broker-a', 0);
const q1 = new MessageQueue('T', 'broker-a', 1);

function request(mq: MessageQueue, ...offsets: number[]): ConsumeRequest {
  const clock = new ManualClock();
  const messages = offsets.map((o) => {
    const m = new MessageExt();
    m.topic = mq.topic;
    m.queueId = mq.queueId;
    m.queueOffset = BigInt(o);
    return m;
  });
  return { messages, mq, pq: new ProcessQueue(clock) };
}

/** Whether `promise` settled after the microtasks queued now have run. */
async function settled<T>(promise: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void promise.then((value) => {
    state = { done: true, value };
  });
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

describe('ConsumeRequestCache', () => {
  test('batches come out in arrival order; an empty cache with no timeout answers undefined at once', async () => {
    const cache = new ConsumeRequestCache(new ManualClock());
    const r1 = request(q0, 0, 1);
    const r2 = request(q1, 0);
    const r3 = request(q0, 2);
    cache.put(r1);
    cache.put(r2);
    cache.put(r3);
    assert.equal(cache.size, 3);
    assert.equal(await cache.take(0), r1);
    assert.equal(await cache.take(0), r2);
    assert.equal(await cache.take(1000), r3);
    assert.equal(cache.size, 0);
    assert.equal(await cache.take(0), undefined);
  });

  test('take waits for the next batch until its timeout on the clock', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const waiting = cache.take(1000);
    clock.advance(999);
    assert.equal((await settled(waiting)).done, false, 'still waiting 1 ms before the timeout');
    const r = request(q0, 5);
    cache.put(r);
    assert.deepEqual(await settled(waiting), { done: true, value: r });
    assert.equal(cache.size, 0, 'a batch handed to a waiter is not also cached');
    assert.equal(clock.pending, 0, 'the waiter timer is cancelled');

    const timingOut = cache.take(500);
    clock.advance(499);
    assert.equal((await settled(timingOut)).done, false);
    clock.advance(1);
    assert.deepEqual(await settled(timingOut), { done: true, value: undefined });
    // The waiter that timed out takes nothing: the next batch stays for the next take.
    const later = request(q1, 1);
    cache.put(later);
    assert.equal(cache.size, 1);
    assert.equal(await cache.take(0), later);
  });

  test('waiters are served in the order they came', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const first = cache.take(1000);
    const second = cache.take(1000);
    const r1 = request(q0, 1);
    const r2 = request(q0, 2);
    cache.put(r1);
    cache.put(r2);
    assert.equal(await first, r1);
    assert.equal(await second, r2);
  });

  test('putFirst puts a batch back in front of those waiting, or hands it to a waiter', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const r1 = request(q0, 0);
    const r2 = request(q1, 0);
    const back = request(q0, 7, 8);
    cache.put(r1);
    cache.put(r2);
    cache.putFirst(back);
    assert.equal(await cache.take(0), back);
    assert.equal(await cache.take(0), r1);
    assert.equal(await cache.take(0), r2);
    const waiting = cache.take(1000);
    cache.putFirst(back);
    assert.equal(await waiting, back);
    assert.equal(cache.size, 0);
  });

  test('removeQueue drops the batches of that queue only (an equal queue object counts)', async () => {
    const cache = new ConsumeRequestCache(new ManualClock());
    const r1 = request(q0, 0);
    const r2 = request(q1, 0);
    const r3 = request(q0, 1);
    cache.put(r1);
    cache.put(r2);
    cache.put(r3);
    cache.removeQueue(new MessageQueue('T', 'broker-a', 0));
    assert.equal(cache.size, 1);
    assert.equal(await cache.take(0), r2);
  });

  test('wakeAll ends every wait with undefined and cancels their timers', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const waits = [cache.take(1000), cache.take(5000)];
    assert.equal(clock.pending, 2);
    cache.wakeAll();
    assert.deepEqual(await Promise.all(waits), [undefined, undefined]);
    assert.equal(clock.pending, 0);
    // A batch put afterwards waits for the next take.
    const r = request(q0, 3);
    cache.put(r);
    assert.equal(cache.size, 1);
  });
});

describe('ConsumeRequestCache waits with a signal', () => {
  test('an abort ends the wait with the reason; the cache and later waits are unaffected', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const controller = new AbortController();
    const waiting = cache.take(10_000, controller.signal);
    const reason = new Error('stop waiting');
    controller.abort(reason);
    await assert.rejects(waiting, (e) => e instanceof RemotingAbortedError && e.cause === reason);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    const next = request(q0, 1);
    cache.put(next);
    assert.equal(await cache.take(0), next, 'the aborted wait took nothing');
    clock.advance(10_000);
    assert.equal(cache.size, 0);
  });

  test('an already aborted signal rejects at once, even with a batch waiting', async () => {
    const cache = new ConsumeRequestCache(new ManualClock());
    cache.put(request(q0, 1));
    const gone = new Error('gone');
    await assert.rejects(
      cache.take(1000, AbortSignal.abort(gone)),
      (e) => e instanceof RemotingAbortedError && e.code === 'ERR_ROCKETMQ_ABORTED' && e.cause === gone,
    );
    assert.equal(cache.size, 1, 'the batch stays for the next poll');
  });

  test('a wait that ends by a batch or a timeout leaves no abort listener behind', async () => {
    const clock = new ManualClock();
    const cache = new ConsumeRequestCache(clock);
    const controller = new AbortController();
    const first = cache.take(1000, controller.signal);
    cache.put(request(q1, 3));
    assert.equal((await first)?.mq, q1);
    const second = cache.take(1000, controller.signal);
    clock.advance(1000);
    assert.equal(await second, undefined);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});
