import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { check, healTimesOf } from '../../../scripts/chaos/checker.js';
import { History, readHistory } from '../../../scripts/chaos/history.js';
import type { ConsumeEvent, HistoryEvent, SendEvent } from '../../../scripts/chaos/types.js';

function send(t: number, key: string, ok = true, extra: Partial<SendEvent> = {}): SendEvent {
  return {
    kind: 'send',
    t,
    client: 'p',
    key,
    ok,
    status: ok ? 'SEND_OK' : 'MQClientError:10001',
    latencyMs: 1,
    ...extra,
  };
}

function consume(t: number, key: string, extra: Partial<ConsumeEvent> = {}): ConsumeEvent {
  return { kind: 'consume', t, client: 'c', key, queueId: 0, queueOffset: 0, reconsumeTimes: 0, ...extra };
}

function ordered(t: number, seq: number): { send: SendEvent; consume: ConsumeEvent } {
  const key = `k${seq}`;
  return {
    send: send(t, key, true, { shard: 's', seq }),
    consume: consume(t + 1000, key, { shard: 's', seq }),
  };
}

test('a clean history passes', () => {
  const events: HistoryEvent[] = [];
  for (let i = 0; i < 5; i++) events.push(send(1000 + i * 10, `k${i}`));
  for (let i = 0; i < 5; i++) events.push(consume(2000 + i, `k${i}`));
  const r = check(events);
  assert.equal(r.sendAttempts, 5);
  assert.equal(r.acknowledged, 5);
  assert.equal(r.consumed, 5);
  assert.equal(r.lostMessageCount, 0);
  assert.equal(r.duplicateMessageCount, 0);
  assert.equal(r.orderInversions, 0);
  assert.equal(r.atLeastOnce, true);
  assert.equal(r.maxUnavailableMs, 10);
});

test('an acknowledged message never consumed is lost; an unacknowledged one is not', () => {
  const r = check([send(1, 'a'), send(2, 'b'), send(3, 'c', false), consume(5, 'a')]);
  assert.equal(r.lostMessageCount, 1);
  assert.deepEqual(r.lostExamples, ['b']);
  assert.equal(r.atLeastOnce, false);
});

test('redeliveries are duplicates, counted once per extra delivery', () => {
  const r = check([
    send(1, 'a'),
    send(2, 'b'),
    consume(3, 'a'),
    consume(4, 'b'),
    consume(5, 'a'),
    consume(6, 'a'),
  ]);
  assert.equal(r.duplicateMessageCount, 2);
  assert.equal(r.lostMessageCount, 0);
});

test('a first delivery below a shard position already delivered is an inversion; a redelivery is not', () => {
  const m = [0, 1, 2, 3].map((seq) => ordered(seq, seq));
  const inOrder = check([
    ...m.map((x) => x.send),
    ...m.map((x) => x.consume),
    { ...(m[1] as { consume: ConsumeEvent }).consume, t: 9999 },
  ]);
  assert.equal(inOrder.orderInversions, 0);
  assert.equal(inOrder.duplicateMessageCount, 1);
  const [a, b, c, d] = m as [(typeof m)[0], (typeof m)[0], (typeof m)[0], (typeof m)[0]];
  const swapped = check([
    ...m.map((x) => x.send),
    { ...a.consume, t: 10 },
    { ...c.consume, t: 11 },
    { ...b.consume, t: 12 },
    { ...d.consume, t: 13 },
  ]);
  assert.equal(swapped.orderInversions, 1);
  assert.match(swapped.inversionExamples[0] ?? '', /k1 \(seq 1\) first delivered after k2 \(seq 2\)/);
  // Other shards do not interfere.
  const twoShards = check([
    consume(1, 'x1', { shard: 'x', seq: 1 }),
    consume(2, 'y0', { shard: 'y', seq: 0 }),
    consume(3, 'x2', { shard: 'x', seq: 2 }),
  ]);
  assert.equal(twoShards.orderInversions, 0);
});

test('the longest stretch without an acknowledgement, and recovery after each heal', () => {
  const events: HistoryEvent[] = [
    send(100, 'a', true, { latencyMs: 100 }),
    send(200, 'b'),
    { kind: 'fault', t: 250, action: 'kill', target: 'broker' },
    send(1200, 'c', false, { latencyMs: 900 }),
    { kind: 'fault', t: 1500, action: 'restart', target: 'broker' },
    send(1800, 'd'),
    send(1900, 'e'),
    { kind: 'fault', t: 2000, action: 'restart', target: 'broker' },
  ];
  const heals = healTimesOf(events, ['restart']);
  assert.deepEqual(heals, [1500, 2000]);
  const r = check(events, { healTimes: heals });
  assert.equal(r.maxUnavailableMs, 1600);
  assert.equal(r.recoveryTimeMs, 300);
  assert.deepEqual(r.unrecoveredHeals, [2000]);
  // The stretch before the first acknowledgement counts from the first send's start.
  assert.equal(check([send(500, 'a', false, { latencyMs: 0 }), send(3000, 'b')]).maxUnavailableMs, 2500);
});

test('a history file reads back as it was written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-chaos-history-'));
  try {
    const h = new History(join(dir, 'h.jsonl'));
    const events: HistoryEvent[] = [
      send(1, 'a'),
      consume(2, 'a'),
      { kind: 'fault', t: 3, action: 'kill', target: 'broker' },
    ];
    for (const e of events) h.append(e);
    h.flush();
    assert.deepEqual(readHistory(h.file), events);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
