/**
 * ProcessQueue and OffsetTreeMap against upstream 4.9.8 ProcessQueue: putMessage (duplicates not
 * counted, dispatchToConsume, msgAccCnt from MAX_OFFSET), the min-offset rule of removeMessage,
 * getMaxSpan, the orderly take/commit/rollback/makeMessageToConsumeAgain, lock and pull expiry on a
 * ManualClock, expiredMessages, the async ConsumeLock, and a random run against a plain model.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OffsetTreeMap } from '../../../../src/client/consumer/offset-tree-map.js';
import {
  ConsumeLock,
  DEFAULT_PROCESS_QUEUE_SETTINGS,
  ProcessQueue,
} from '../../../../src/client/consumer/process-queue.js';
import { ManualClock } from '../../../../src/common/clock.js';
import type { MessageExt } from '../../../../src/common/message/message.js';
import { drain, msgAt, offsets } from './consumer-fakes.js';

function withMax(offset: number, maxOffset: number): MessageExt {
  return msgAt(offset, { properties: { MAX_OFFSET: String(maxOffset) } });
}

describe('OffsetTreeMap', () => {
  test('keeps keys sorted whatever the insertion order, put returns the replaced value', () => {
    const map = new OffsetTreeMap();
    assert.equal(map.isEmpty(), true);
    assert.equal(map.firstKey(), undefined);
    assert.equal(map.pollFirst(), undefined);
    for (const o of [5, 1, 9, 3, 7]) assert.equal(map.put(o, msgAt(o)), undefined);
    const replacement = msgAt(3, { body: 'again' });
    assert.equal(Number(map.put(3, replacement)?.queueOffset), 3);
    assert.equal(map.get(3), replacement);
    assert.equal(map.size, 5);
    assert.deepEqual(offsets([...map.valuesInOrder()]), [1, 3, 5, 7, 9]);
    assert.equal(map.firstKey(), 1);
    assert.equal(map.lastKey(), 9);
    assert.equal(Number(map.firstValue()?.queueOffset), 1);
    assert.equal(Number(map.remove(5)?.queueOffset), 5);
    assert.equal(map.remove(5), undefined);
    assert.equal(map.pollFirst()?.[0], 1);
    assert.deepEqual(offsets([...map.valuesInOrder()]), [3, 7, 9]);
    map.clear();
    assert.equal(map.size, 0);
  });

  test('random puts, removes and polls agree with a sorted reference', () => {
    const rnd = prng(7);
    const map = new OffsetTreeMap();
    const ref = new Map<number, MessageExt>();
    for (let step = 0; step < 5000; step++) {
      const op = rnd() % 10;
      const key = rnd() % 300;
      if (op < 5) {
        const m = msgAt(key);
        assert.equal(map.put(key, m), ref.get(key));
        ref.set(key, m);
      } else if (op < 8) {
        assert.equal(map.remove(key), ref.get(key));
        ref.delete(key);
      } else {
        const sorted = [...ref.keys()].sort((a, b) => a - b);
        const first = sorted[0];
        const polled = map.pollFirst();
        assert.equal(polled?.[0], first);
        if (first !== undefined) ref.delete(first);
      }
      const sorted = [...ref.keys()].sort((a, b) => a - b);
      assert.equal(map.size, sorted.length);
      assert.equal(map.firstKey(), sorted[0]);
      assert.equal(map.lastKey(), sorted[sorted.length - 1]);
    }
    assert.deepEqual(
      offsets([...map.valuesInOrder()]),
      [...ref.keys()].sort((a, b) => a - b),
    );
  });
});

describe('ProcessQueue.putMessage', () => {
  test('counts each offset once, sums body bytes, and asks for a dispatch only when none runs', () => {
    const pq = new ProcessQueue(new ManualClock());
    assert.equal(pq.putMessage([]), false, 'nothing cached, nothing to dispatch');
    assert.equal(pq.putMessage([msgAt(0, { body: 'ab' }), msgAt(1, { body: 'cde' })]), true);
    assert.equal(pq.consuming, true);
    assert.equal(pq.msgCount, 2);
    assert.equal(pq.msgSize, 5);
    assert.equal(pq.queueOffsetMax, 1);
    // The same offsets again (a pull repeated after a timeout): replaced, not counted.
    assert.equal(pq.putMessage([msgAt(1, { body: 'cde' }), msgAt(2, { body: 'f' })]), false);
    assert.equal(pq.msgCount, 3);
    assert.equal(pq.msgSize, 6);
    assert.equal(pq.msgTreeMap.size, 3);
    assert.equal(pq.queueOffsetMax, 2);
  });

  test('queueOffsetMax is the offset of the last new message put, as upstream (not the largest)', () => {
    const pq = new ProcessQueue(new ManualClock());
    pq.putMessage([msgAt(10), msgAt(11)]);
    pq.putMessage([msgAt(4)]);
    assert.equal(pq.queueOffsetMax, 4);
    pq.putMessage([msgAt(11)]);
    assert.equal(pq.queueOffsetMax, 4, 'a duplicate does not move it');
  });

  test('dispatchToConsume again once an orderly take found nothing', () => {
    const pq = new ProcessQueue(new ManualClock());
    assert.equal(pq.putMessage([msgAt(0)]), true);
    assert.equal(pq.putMessage([msgAt(1)]), false);
    assert.equal(pq.takeMessages(10).length, 2);
    assert.equal(pq.consuming, true, 'still consuming while something was taken');
    assert.deepEqual(pq.takeMessages(10), []);
    assert.equal(pq.consuming, false);
    assert.equal(pq.putMessage([msgAt(2)]), true);
  });

  test('msgAccCnt is MAX_OFFSET of the last message minus its offset, kept when not positive', () => {
    const pq = new ProcessQueue(new ManualClock());
    pq.putMessage([withMax(0, 500), withMax(1, 100)]);
    assert.equal(pq.msgAccCnt, 99, 'read from the last message only');
    pq.putMessage([withMax(2, 2)]);
    assert.equal(pq.msgAccCnt, 99, 'zero backlog leaves the old figure');
    pq.putMessage([msgAt(3)]);
    assert.equal(pq.msgAccCnt, 99, 'no MAX_OFFSET property');
    pq.putMessage([withMax(4, 40)]);
    assert.equal(pq.msgAccCnt, 36);
  });
});

describe('ProcessQueue.removeMessage (the min-offset rule)', () => {
  test('returns the smallest offset still cached, or queueOffsetMax + 1 when none is', () => {
    const clock = new ManualClock();
    const pq = new ProcessQueue(clock);
    const m = [0, 1, 2, 3, 4].map((o) => msgAt(o, { body: 'xx' }));
    pq.putMessage(m);
    assert.equal(pq.removeMessage([m[2] as MessageExt, m[4] as MessageExt]), 0, 'offset 0 still pending');
    assert.equal(pq.msgCount, 3);
    assert.equal(pq.msgSize, 6);
    assert.equal(pq.removeMessage([m[0] as MessageExt]), 1);
    clock.advance(5);
    assert.equal(pq.removeMessage([m[1] as MessageExt, m[3] as MessageExt]), 5);
    assert.equal(pq.lastConsumeTimestamp, clock.now());
    assert.equal(pq.msgCount, 0);
    assert.equal(pq.msgSize, 0);
  });

  test('-1 when the queue was already empty; unknown offsets change nothing', () => {
    const clock = new ManualClock();
    const pq = new ProcessQueue(clock);
    clock.advance(10);
    assert.equal(pq.removeMessage([msgAt(3)]), -1);
    assert.equal(pq.lastConsumeTimestamp, clock.now(), 'the consume time moves even then');
    pq.putMessage([msgAt(7), msgAt(8)]);
    assert.equal(pq.removeMessage([msgAt(100)]), 7);
    assert.equal(pq.msgCount, 2);
    assert.equal(pq.removeMessage([msgAt(7), msgAt(7)]), 8, 'a message listed twice is removed once');
    assert.equal(pq.msgCount, 1);
  });

  test('getMaxSpan is last minus first cached offset, 0 when empty', () => {
    const pq = new ProcessQueue(new ManualClock());
    assert.equal(pq.getMaxSpan(), 0);
    pq.putMessage([msgAt(100)]);
    assert.equal(pq.getMaxSpan(), 0);
    pq.putMessage([msgAt(2100), msgAt(150)]);
    assert.equal(pq.getMaxSpan(), 2000);
    pq.removeMessage([msgAt(100)]);
    assert.equal(pq.getMaxSpan(), 1950);
  });
});

describe('ProcessQueue orderly', () => {
  test('takeMessages moves the first batch to the consuming map; commit returns the offset after it', () => {
    const pq = new ProcessQueue(new ManualClock());
    pq.putMessage([3, 1, 2, 0, 4].map((o) => msgAt(o, { body: 'abc' })));
    assert.deepEqual(offsets(pq.takeMessages(2)), [0, 1]);
    assert.deepEqual(offsets([...pq.consumingMsgOrderlyTreeMap.valuesInOrder()]), [0, 1]);
    assert.deepEqual(offsets([...pq.msgTreeMap.valuesInOrder()]), [2, 3, 4]);
    assert.equal(pq.msgCount, 5, 'taken messages still count until committed');
    assert.equal(pq.commit(), 2);
    assert.equal(pq.msgCount, 3);
    assert.equal(pq.msgSize, 9);
    assert.equal(pq.consumingMsgOrderlyTreeMap.size, 0);
    assert.equal(pq.commit(), -1, 'nothing taken');
    assert.equal(pq.msgCount, 3);
    assert.deepEqual(offsets(pq.takeMessages(10)), [2, 3, 4]);
    assert.equal(pq.commit(), 5);
    assert.equal(pq.msgCount, 0);
    assert.equal(pq.msgSize, 0);
  });

  test('rollback puts every taken message back in order', () => {
    const pq = new ProcessQueue(new ManualClock());
    pq.putMessage([0, 1, 2, 3].map((o) => msgAt(o)));
    pq.takeMessages(3);
    pq.rollback();
    assert.equal(pq.consumingMsgOrderlyTreeMap.size, 0);
    assert.deepEqual(offsets([...pq.msgTreeMap.valuesInOrder()]), [0, 1, 2, 3]);
    assert.equal(pq.msgCount, 4);
    assert.deepEqual(offsets(pq.takeMessages(1)), [0]);
  });

  test('makeMessageToConsumeAgain puts the given messages back in front, leaving the others taken', () => {
    const pq = new ProcessQueue(new ManualClock());
    const m = [0, 1, 2, 3].map((o) => msgAt(o));
    pq.putMessage(m);
    const taken = pq.takeMessages(3);
    pq.makeMessageToConsumeAgain(taken.slice(1));
    assert.deepEqual(offsets([...pq.consumingMsgOrderlyTreeMap.valuesInOrder()]), [0]);
    assert.deepEqual(offsets([...pq.msgTreeMap.valuesInOrder()]), [1, 2, 3]);
    assert.equal(pq.commit(), 1);
    assert.deepEqual(offsets(pq.takeMessages(2)), [1, 2]);
  });

  test('clear forgets both maps and the counters', () => {
    const pq = new ProcessQueue(new ManualClock());
    pq.putMessage([msgAt(0), msgAt(1)]);
    pq.takeMessages(1);
    pq.clear();
    assert.equal(pq.msgTreeMap.size + pq.consumingMsgOrderlyTreeMap.size, 0);
    assert.equal(pq.msgCount, 0);
    assert.equal(pq.msgSize, 0);
    assert.equal(pq.queueOffsetMax, 0);
  });
});

describe('ProcessQueue timing', () => {
  test('upstream settings: lock lost after 30 s without renewal, pulls stalled after 120 s', () => {
    assert.deepEqual(
      { ...DEFAULT_PROCESS_QUEUE_SETTINGS },
      { lockMaxLiveTime: 30_000, pullMaxIdleTime: 120_000 },
    );
  });

  test('isLockExpired and isPullExpired turn true strictly after the limit', () => {
    const clock = new ManualClock();
    const pq = new ProcessQueue(clock, { lockMaxLiveTime: 100, pullMaxIdleTime: 500 });
    clock.advance(100);
    assert.equal(pq.isLockExpired(), false);
    clock.advance(1);
    assert.equal(pq.isLockExpired(), true);
    pq.lastLockTimestamp = clock.now();
    assert.equal(pq.isLockExpired(), false);
    clock.advance(399);
    assert.equal(pq.isPullExpired(), false);
    clock.advance(1);
    assert.equal(pq.isPullExpired(), true);
    pq.lastPullTimestamp = clock.now();
    assert.equal(pq.isPullExpired(), false);
  });

  test('expiredMessages: the oldest messages consuming for longer than the timeout, at most max', () => {
    const clock = new ManualClock();
    const pq = new ProcessQueue(clock);
    const start = (t: number) => ({ properties: { CONSUME_START_TIME: String(t) } });
    const now = clock.now();
    pq.putMessage([
      msgAt(0, start(now - 1000)),
      msgAt(1, start(now - 1000)),
      msgAt(2, start(now - 1000)),
      msgAt(3, start(now - 10)),
      msgAt(4, start(now - 1000)),
    ]);
    assert.deepEqual(offsets(pq.expiredMessages(500, 16)), [0, 1, 2], 'stops at the first not expired');
    assert.deepEqual(offsets(pq.expiredMessages(500, 2)), [0, 1]);
    assert.deepEqual(offsets(pq.expiredMessages(1000, 16)), [], 'exactly the timeout is not expired');
    const fresh = new ProcessQueue(clock);
    fresh.putMessage([msgAt(0), msgAt(1, start(0))]);
    assert.deepEqual(fresh.expiredMessages(1, 16), [], 'a message not started blocks the scan');
    const blank = new ProcessQueue(clock);
    blank.putMessage([msgAt(0, { properties: { CONSUME_START_TIME: '' } })]);
    assert.deepEqual(blank.expiredMessages(1, 16), []);
  });
});

describe('ConsumeLock', () => {
  test('tryLock fails while held and succeeds after unlock', () => {
    const lock = new ConsumeLock();
    assert.equal(lock.tryLock(), true);
    assert.equal(lock.isHeld, true);
    assert.equal(lock.tryLock(), false);
    lock.unlock();
    assert.equal(lock.isHeld, false);
    assert.equal(lock.tryLock(), true);
  });

  test('lock waits for unlock; waiters are served first come first served', async () => {
    const clock = new ManualClock();
    const lock = new ConsumeLock();
    assert.equal(await lock.lock(clock, 100), true, 'free: at once');
    const order: string[] = [];
    const a = lock.lock(clock, 1000).then((ok) => order.push(`a:${ok}`));
    const b = lock.lock(clock, 1000).then((ok) => order.push(`b:${ok}`));
    const c = lock.lock(clock, 1000).then((ok) => order.push(`c:${ok}`));
    await drain(3);
    assert.deepEqual(order, []);
    lock.unlock();
    await a;
    assert.deepEqual(order, ['a:true']);
    assert.equal(lock.isHeld, true, 'handed over, never free in between');
    assert.equal(lock.tryLock(), false, 'a newcomer cannot jump the queue');
    lock.unlock();
    await b;
    lock.unlock();
    await c;
    assert.deepEqual(order, ['a:true', 'b:true', 'c:true']);
    lock.unlock();
    assert.equal(lock.isHeld, false);
    assert.equal(clock.pending, 0, 'granted waiters cancel their timers');
  });

  test('a waiter gives up after its timeout and is not granted the lock later', async () => {
    const clock = new ManualClock();
    const lock = new ConsumeLock();
    lock.tryLock();
    const early = lock.lock(clock, 100);
    const late = lock.lock(clock, 1000);
    clock.advance(99);
    await drain(2);
    clock.advance(1);
    assert.equal(await early, false);
    lock.unlock();
    assert.equal(await late, true, 'the next waiter gets it');
    lock.unlock();
    assert.equal(lock.isHeld, false, 'the timed-out waiter did not take it');
  });
});

/** A plain model of ProcessQueue's bookkeeping: arrays, sorted when read. */
class ModelQueue {
  cached = new Map<number, number>();
  taken = new Map<number, number>();
  count = 0;
  size = 0;
  offsetMax = 0;

  put(items: Array<[number, number]>): void {
    for (const [o, len] of items) {
      if (this.cached.has(o)) {
        this.cached.set(o, len);
        continue;
      }
      this.cached.set(o, len);
      this.count++;
      this.offsetMax = o;
      this.size += len;
    }
  }

  remove(items: Array<[number, number]>): number {
    if (this.cached.size === 0) return -1;
    let result = this.offsetMax + 1;
    for (const [o, len] of items) {
      if (this.cached.delete(o)) {
        this.count--;
        this.size -= len;
      }
    }
    if (this.count === 0) this.size = 0;
    const first = min(this.cached);
    if (first !== undefined) result = first;
    return result;
  }

  take(n: number): number[] {
    const keys = [...this.cached.keys()].sort((a, b) => a - b).slice(0, n);
    for (const k of keys) {
      this.taken.set(k, this.cached.get(k) as number);
      this.cached.delete(k);
    }
    return keys;
  }

  commit(): number {
    const last = max(this.taken);
    this.count -= this.taken.size;
    if (this.count === 0) this.size = 0;
    else for (const len of this.taken.values()) this.size -= len;
    this.taken.clear();
    return last === undefined ? -1 : last + 1;
  }

  rollback(): void {
    for (const [k, v] of this.taken) this.cached.set(k, v);
    this.taken.clear();
  }

  again(keys: number[]): void {
    for (const k of keys) {
      const len = this.taken.get(k);
      if (len === undefined) continue;
      this.taken.delete(k);
      this.cached.set(k, len);
    }
  }

  span(): number {
    const a = min(this.cached);
    const b = max(this.cached);
    return a === undefined || b === undefined ? 0 : b - a;
  }
}

function min(m: Map<number, number>): number | undefined {
  return m.size === 0 ? undefined : Math.min(...m.keys());
}

function max(m: Map<number, number>): number | undefined {
  return m.size === 0 ? undefined : Math.max(...m.keys());
}

/** xorshift32: a reproducible sequence of non-negative ints. */
function prng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

describe('ProcessQueue random run', () => {
  for (const seed of [1, 2, 3, 42]) {
    test(`agrees with the model (seed ${seed})`, () => {
      const rnd = prng(seed);
      const pq = new ProcessQueue(new ManualClock());
      const model = new ModelQueue();
      const byOffset = new Map<number, MessageExt>();
      let next = 0;
      const message = (o: number): MessageExt => {
        const m = msgAt(o, { body: Buffer.alloc(1 + (o % 7)) });
        byOffset.set(o, m);
        return m;
      };
      for (let step = 0; step < 3000; step++) {
        const op = rnd() % 12;
        if (op < 4) {
          // A pull: new offsets, sometimes with a few already seen.
          const n = 1 + (rnd() % 5);
          const batch: MessageExt[] = [];
          if (next > 0 && rnd() % 3 === 0) batch.push(message(rnd() % next));
          for (let i = 0; i < n; i++) batch.push(message(next++));
          pq.putMessage(batch);
          model.put(batch.map((m) => [Number(m.queueOffset), m.body.length]));
        } else if (op < 7) {
          const pick = [...pq.msgTreeMap.valuesInOrder()].filter(() => rnd() % 3 === 0);
          if (rnd() % 5 === 0 && next > 0) pick.push(byOffset.get(rnd() % next) as MessageExt);
          const got = pq.removeMessage(pick);
          const want = model.remove(pick.map((m) => [Number(m.queueOffset), m.body.length]));
          assert.equal(got, want, `removeMessage at step ${step}`);
        } else if (op < 9) {
          const n = 1 + (rnd() % 4);
          assert.deepEqual(offsets(pq.takeMessages(n)), model.take(n), `takeMessages at step ${step}`);
        } else if (op < 10) {
          assert.equal(pq.commit(), model.commit(), `commit at step ${step}`);
        } else if (op < 11) {
          pq.rollback();
          model.rollback();
        } else {
          const taken = [...pq.consumingMsgOrderlyTreeMap.valuesInOrder()].filter(() => rnd() % 2 === 0);
          pq.makeMessageToConsumeAgain(taken);
          model.again(offsets(taken));
        }
        assert.equal(pq.msgCount, model.count, `msgCount at step ${step}`);
        assert.equal(pq.msgSize, model.size, `msgSize at step ${step}`);
        assert.equal(pq.queueOffsetMax, model.offsetMax);
        assert.equal(pq.getMaxSpan(), model.span());
        assert.equal(pq.msgTreeMap.firstKey(), min(model.cached));
        assert.equal(pq.consumingMsgOrderlyTreeMap.size, model.taken.size);
      }
    });
  }
});
