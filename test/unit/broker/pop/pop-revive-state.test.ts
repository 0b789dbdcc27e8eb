/**
 * The pending-checkpoint table of one revive queue and the in-flight counter: pure parts of the
 * revive side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PopInflightMessageCounter } from '../../../../src/broker/pop/pop-inflight-message-counter.js';
import {
  ackOffsetByIndex,
  checkPointKey,
  indexOfAck,
  PopReviveState,
  type ReviveAck,
  type ReviveCheckPoint,
} from '../../../../src/broker/pop/pop-revive-state.js';

const ck = (over: Partial<ReviveCheckPoint> = {}): ReviveCheckPoint => ({
  topic: 'T',
  group: 'G',
  queueId: 1,
  startOffset: 100n,
  popTime: 1000,
  invisibleTime: 500,
  bitMap: 0,
  num: 3,
  queueOffsetDiff: [0, 2, 5],
  brokerName: 'b',
  ...over,
});

const ackOf = (c: ReviveCheckPoint, offsets: bigint[], over: Partial<ReviveAck> = {}): ReviveAck => ({
  topic: c.topic,
  group: c.group,
  queueId: c.queueId,
  startOffset: c.startOffset,
  popTime: c.popTime,
  brokerName: c.brokerName,
  ackOffsets: offsets,
  ...over,
});

describe('PopReviveState', () => {
  test('offsets by index and index of an ack follow queueOffsetDiff (filtered pops skip offsets)', () => {
    const c = ck();
    assert.deepEqual(
      [0, 1, 2].map((i) => ackOffsetByIndex(c, i)),
      [100n, 102n, 105n],
    );
    assert.equal(indexOfAck(c, 105n), 2);
    assert.equal(indexOfAck(c, 101n), -1);
    assert.equal(indexOfAck(c, 99n), -1);
    const plain = ck({ queueOffsetDiff: [] });
    assert.equal(indexOfAck(plain, 102n), 2);
    assert.equal(indexOfAck(plain, 103n), -1);
  });

  test('acks set bits; a fully acked checkpoint is dropped; repeats and strangers are unknown', () => {
    const s = new PopReviveState();
    const c = ck();
    assert.ok(s.addCheckPoint(c, 7n));
    assert.ok(!s.addCheckPoint(c, 8n), 'the same checkpoint twice');
    assert.deepEqual(s.applyAck(ackOf(c, [100n, 105n])), { acked: 2, unknown: 0, completed: [] });
    assert.equal(s.applyAck(ackOf(c, [105n])).unknown, 1, 'repeated');
    assert.equal(s.applyAck(ackOf(c, [101n])).unknown, 1, 'not in the checkpoint');
    assert.equal(s.applyAck(ackOf(c, [102n], { popTime: 999 })).unknown, 1, 'another pop');
    assert.equal(s.applyAck(ackOf(c, [102n], { brokerName: 'x' })).unknown, 1, 'another broker');
    assert.equal(s.minPendingOffset(), 7n);
    const done = s.applyAck(ackOf(c, [102n]));
    assert.equal(done.completed.length, 1);
    assert.equal(s.size, 0);
    assert.equal(s.minPendingOffset(), undefined);
  });

  test('due at popTime + invisibleTime, in revive-queue order; the smallest pending offset is the commit point', () => {
    const s = new PopReviveState();
    s.addCheckPoint(ck({ startOffset: 1n, invisibleTime: 5000 }), 3n);
    s.addCheckPoint(ck({ startOffset: 2n, invisibleTime: 100 }), 4n);
    assert.deepEqual(s.due(1099), []);
    const due = s.due(1100);
    assert.deepEqual(
      due.map((p) => p.reviveOffset),
      [4n],
    );
    s.remove(due[0]!);
    assert.equal(s.minPendingOffset(), 3n);
  });

  test('a checkpoint written with bits set, or with nothing in it, is not kept; 32 messages fill an int', () => {
    const s = new PopReviveState();
    assert.ok(!s.addCheckPoint(ck({ bitMap: 0b111 }), 1n));
    assert.ok(!s.addCheckPoint(ck({ num: 0 }), 2n));
    const big = ck({ num: 32, queueOffsetDiff: [] });
    assert.ok(s.addCheckPoint(big, 3n));
    const all = Array.from({ length: 32 }, (_, i) => 100n + BigInt(i));
    assert.equal(s.applyAck(ackOf(big, all)).completed.length, 1);
  });

  test('an ack with the handle from before a change settles the checkpoint written in its place, through chains', () => {
    const s = new PopReviveState();
    const old = ck({ num: 1, queueOffsetDiff: [0] });
    s.addCheckPoint(old, 1n);
    // CHANGE: new checkpoint for offset 100 naming the old one, then the ack of the old bit.
    const first = ck({ num: 1, queueOffsetDiff: [0], popTime: 2000, previous: checkPointKey(old) });
    s.addCheckPoint(first, 2n);
    assert.equal(s.applyAck(ackOf(old, [100n], { changeAck: true })).acked, 1);
    const second = ck({ num: 1, queueOffsetDiff: [0], popTime: 3000, previous: checkPointKey(first) });
    s.addCheckPoint(second, 3n);
    assert.equal(s.applyAck(ackOf(first, [100n], { changeAck: true })).acked, 1);
    assert.equal(s.size, 1);
    // The consumer acks with the original handle: the latest checkpoint is settled.
    const r = s.applyAck(ackOf(old, [100n]));
    assert.equal(r.acked, 1);
    assert.equal(s.size, 0);
    // The chain is over: the middle handle settles nothing now.
    assert.equal(s.applyAck(ackOf(first, [100n])).unknown, 1);
  });

  test('a replay from the new checkpoint (the old one before the commit point): the change ack settles nothing', () => {
    const s = new PopReviveState();
    const old = ck({ num: 1, queueOffsetDiff: [0] });
    // The restart replays from the new checkpoint's offset: the old one is not read again.
    s.addCheckPoint(ck({ num: 1, queueOffsetDiff: [0], popTime: 2000, previous: checkPointKey(old) }), 5n);
    assert.equal(s.applyAck(ackOf(old, [100n], { changeAck: true })).unknown, 1);
    assert.equal(s.size, 1, 'the message still comes back at its new time');
    // The consumer's ack with the old handle still settles it.
    assert.equal(s.applyAck(ackOf(old, [100n])).acked, 1);
  });

  test('a revive marker never reaches a successor; forged handles reach nothing', () => {
    const s = new PopReviveState();
    const old = ck({ num: 1, queueOffsetDiff: [0] });
    s.addCheckPoint(old, 1n);
    s.addCheckPoint(ck({ num: 1, queueOffsetDiff: [0], popTime: 2000, previous: checkPointKey(old) }), 2n);
    s.applyAck(ackOf(old, [100n], { changeAck: true }));
    assert.equal(s.applyAck(ackOf(old, [100n], { reviveMarker: true })).unknown, 1);
    assert.equal(s.applyAck(ackOf(old, [100n], { popTime: 1500 })).unknown, 1, 'a forged pop time');
    assert.equal(s.size, 1);
  });

  test('un-acked messages per topic@group', () => {
    const s = new PopReviveState();
    const c = ck();
    s.addCheckPoint(c, 1n);
    s.addCheckPoint(ck({ topic: 'U', num: 2, queueOffsetDiff: [] }), 2n);
    s.applyAck(ackOf(c, [100n]));
    assert.deepEqual(
      [...s.unackedByTopicGroup()],
      [
        ['T@G', 2],
        ['U@G', 2],
      ],
    );
  });
});

describe('PopInflightMessageCounter', () => {
  test('counts up at pop, down at settle, never below zero, not for pops before the start', () => {
    const c = new PopInflightMessageCounter(1000);
    c.incrementInFlightMessageNum('T', 'G', 0, 3);
    c.incrementInFlightMessageNum('T', 'G', 1, 2);
    c.decrementInFlightMessageNum('T', 'G', 1500, 0, 1);
    c.decrementInFlightMessageNum('T', 'G', 999, 0, 1);
    assert.equal(c.getGroupPopInFlightMessageNum('T', 'G', 0), 2);
    assert.equal(c.getTopicGroupInFlightMessageNum('T', 'G'), 4);
    c.decrementInFlightMessageNum('T', 'G', 1500, 1, 5);
    assert.equal(c.getGroupPopInFlightMessageNum('T', 'G', 1), 0);
    c.clearInFlightMessageNumByGroupName('G');
    assert.equal(c.getTopicGroupInFlightMessageNum('T', 'G'), 0);
  });
});
