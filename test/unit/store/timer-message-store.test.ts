/**
 * TimerMessageStore over a real DefaultMessageStore with a manual clock: due entries are given out
 * to their real topic after their slot (not before), the checkpoint lets a new timer skip what was
 * delivered, and an entry that reached the wheel late stays pending in the checkpoint.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { ManualClock } from '../../../src/common/clock.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { readTimerCheckpoint } from '../../../src/store/timer/timer-checkpoint.js';
import { TIMER_TOPIC } from '../../../src/store/timer/timer-config.js';
import { TimerMessageStore } from '../../../src/store/timer/timer-message-store.js';
import { msg, openStore, put, quiet, removeTempDirs, tempDir } from './default-message-store-support.js';

after(removeTempDirs);

const REAL = 'RealTopic';

function timerMsg(i: number, outMs: number) {
  return msg(i, {
    topic: TIMER_TOPIC,
    extra: { TIMER_OUT_MS: String(outMs), REAL_TOPIC: REAL, REAL_QID: '1', TIMER_DELAY_SEC: '1' },
  });
}

async function until(probe: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (probe()) return;
    await turn();
  }
  assert.fail(`never happened: ${what}`);
}

function realCount(store: DefaultMessageStore): number {
  return Number(store.getMaxOffsetInQueue(REAL, 1));
}

test('gives out after the slot, checkpoints, and a new timer skips what was delivered', async () => {
  const root = tempDir('rmq-timer-');
  const clock = new ManualClock(1_700_000_000_000);
  const store = await openStore(root, {}, { clock });
  const timer = new TimerMessageStore(store, { clock, logger: quiet, timerFlushIntervalMs: 1000 });
  await timer.load();
  timer.start();
  const t0 = clock.now();
  // Even ones due in the next slot, odd ones in 100 s.
  for (let i = 0; i < 10; i++) await put(store, timerMsg(i, t0 + (i % 2 === 0 ? 1000 : 100_000)));
  await until(() => timer.pending === 10, 'all 10 in the wheel');
  clock.advance(1999 - (t0 % 1000));
  await turn();
  assert.equal(realCount(store), 0, 'nothing before the slot has passed');
  clock.advance(1);
  await until(() => realCount(store) === 5, '5 given out');
  const got = await store.getMessage('g', REAL, 1, 0n, 32);
  const first = decodeMessage(got.messages[0]!, 0);
  assert.equal(first.topic, REAL);
  assert.equal(first.queueId, 1);
  assert.equal(first.getProperty('TIMER_ENQUEUE_MS'), String(Math.floor(t0 / 1000) * 1000));
  assert.ok(Number(first.getProperty('TIMER_DEQUEUE_MS')) >= t0 + 1000);
  assert.equal(first.getProperty('REAL_TOPIC'), REAL);
  assert.equal(timer.pending, 5);
  await timer.shutdown();
  const cp = await readTimerCheckpoint(timer.checkpointPath());
  assert.deepEqual(cp, {
    queueOffset: 10,
    deliveredUpToMs: Math.floor(clock.now() / 1000) * 1000,
    lowestPendingOffset: 1,
  });

  const again = new TimerMessageStore(store, { clock, logger: quiet });
  await again.load();
  assert.deepEqual(
    {
      scanned: again.recoveryStats?.scanned,
      skipped: again.recoveryStats?.skipped,
      pending: again.recoveryStats?.pending,
    },
    { scanned: 9, skipped: 4, pending: 5 },
    'read from the lowest pending offset (1); entries 2, 4, 6, 8 proven delivered',
  );
  // A late entry (its slot already read) is pending in the next checkpoint, not proven delivered.
  again.start();
  await put(store, timerMsg(10, t0));
  await until(() => again.pending === 6, 'late entry in the wheel');
  const late = again.checkpoint();
  assert.equal(late.queueOffset, 11);
  assert.ok(late.deliveredUpToMs <= clock.now(), 'deliveredUpTo lowered to the late entry');
  clock.advance(1000);
  await until(() => realCount(store) === 6, 'late entry given out at the next slot');
  clock.advance(100_000);
  // A manual clock runs a timer set for a time already past only at its next advance.
  await until(() => {
    clock.advance(0);
    return realCount(store) === 11;
  }, 'the other 5 given out');
  await again.shutdown();
  const last = await readTimerCheckpoint(again.checkpointPath());
  assert.equal(last?.lowestPendingOffset, 11, 'nothing pending');
  await store.shutdown();
});

test('an entry whose tag code is not a time (the official broker writes the tag hash) waits for its TIMER_OUT_MS', async () => {
  const root = tempDir('rmq-timer-foreign-');
  const clock = new ManualClock(1_700_000_000_000);
  const store = await openStore(root, {}, { clock });
  const t0 = clock.now();
  await put(store, timerMsg(0, t0 + 100_000));
  // The official broker's consume queue keeps the tag hash of a timer-topic entry: show it that.
  const backend = {
    config: store.config,
    selectOneMessageByOffset: store.selectOneMessageByOffset.bind(store),
    putMessage: store.putMessage.bind(store),
    onMessageArrived: store.onMessageArrived.bind(store),
    getConsumeQueue(topic: string, queueId: number) {
      const cq = store.getConsumeQueue(topic, queueId);
      if (cq === undefined || topic !== TIMER_TOPIC) return cq;
      return new Proxy(cq, {
        get(target, name, receiver) {
          if (name !== 'getIndexBuffer') return Reflect.get(target, name, receiver);
          return (start: bigint, max?: number) => {
            const buf = target.getIndexBuffer(start, max);
            if (buf === undefined) return buf;
            const copy = Buffer.from(buf);
            for (let at = 0; at < copy.length; at += 20) copy.writeBigInt64BE(12345n, at + 12);
            return copy;
          };
        },
      });
    },
  };
  const timer = new TimerMessageStore(backend, { clock, logger: quiet });
  await timer.load();
  timer.start();
  assert.equal(timer.pending, 1);
  clock.advance(2000);
  for (let i = 0; i < 50; i++) await turn();
  assert.equal(realCount(store), 0, 'not given out before its time');
  clock.advance(100_000);
  await until(() => {
    clock.advance(0);
    return realCount(store) === 1;
  }, 'given out at its time');
  await timer.shutdown();
  await store.shutdown();
});

test('a slot whose records lie end to end and one split by another topic are given out whole and in order', async () => {
  const root = tempDir('rmq-timer-runs-');
  const clock = new ManualClock(1_700_000_000_000);
  const store = await openStore(root, {}, { clock });
  const timer = new TimerMessageStore(store, { clock, logger: quiet });
  await timer.load();
  timer.start();
  const t0 = clock.now();
  // 0-29 adjacent in the commit log, then a plain message, then 30-59: read as two runs.
  for (let i = 0; i < 30; i++) await put(store, timerMsg(i, t0 + 1000));
  await put(store, msg(1000, { topic: 'Other' }));
  for (let i = 30; i < 60; i++) await put(store, timerMsg(i, t0 + 1000));
  await until(() => timer.pending === 60, 'all 60 in the wheel');
  clock.advance(2000 - (t0 % 1000));
  // A manual clock runs a timer set for a time already past only at its next advance.
  await until(() => {
    clock.advance(0);
    return realCount(store) === 60;
  }, '60 given out');
  const records: Buffer[] = [];
  while (records.length < 60) {
    const got = await store.getMessage('g', REAL, 1, BigInt(records.length), 64);
    assert.ok(got.messages.length > 0, 'a pull returns messages');
    records.push(...got.messages);
  }
  records.forEach((record, i) => {
    const m = decodeMessage(record, 0);
    assert.equal(m.body.toString(), `body-${i}`);
    assert.equal(m.getProperty('idx'), String(i));
    assert.equal(m.bornHost.port, msg(i).bornHost.port);
  });
  await timer.shutdown();
  await store.shutdown();
});
