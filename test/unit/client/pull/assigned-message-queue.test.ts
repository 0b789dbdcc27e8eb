/**
 * AssignedMessageQueue as upstream's: unknown queues count as paused and pausing them does nothing;
 * the pull offset moves only for the ProcessQueue that pulled (a seek or a reassignment may have
 * replaced it); updateTopic drops the other queues of that topic only, updateAll every other queue,
 * dropping their ProcessQueues; in subscribe mode a queue shares the rebalance's ProcessQueue.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AssignedMessageQueue } from '../../../../src/client/consumer/lite/assigned-message-queue.js';
import { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';

const clock = new ManualClock();
const settings = { lockMaxLiveTime: 30_000, pullMaxIdleTime: 120_000 };
const a0 = new MessageQueue('A', 'broker-a', 0);
const a1 = new MessageQueue('A', 'broker-a', 1);
const b0 = new MessageQueue('B', 'broker-a', 0);

function keys(amq: AssignedMessageQueue): string[] {
  return amq
    .messageQueues()
    .map((mq) => mq.key)
    .sort();
}

describe('AssignedMessageQueue', () => {
  test('a new queue starts unpaused with every offset at -1 and its own ProcessQueue', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0, a1]);
    const s0 = amq.get(a0);
    const s1 = amq.get(a1);
    assert.ok(s0 !== undefined && s1 !== undefined);
    assert.equal(s0.paused, false);
    assert.equal(s0.pullOffset, -1n);
    assert.equal(s0.consumeOffset, -1n);
    assert.equal(s0.seekOffset, -1n);
    assert.notEqual(s0.pq, s1.pq);
    // An equal queue (another object) finds the same state.
    assert.equal(amq.get(new MessageQueue('A', 'broker-a', 0)), s0);
  });

  test('pause and resume act on assigned queues only; an unknown queue counts as paused', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0, a1]);
    assert.equal(amq.isPaused(b0), true, 'nothing pulls a queue that is not assigned');
    amq.pause([a0, b0]);
    assert.equal(amq.isPaused(a0), true);
    assert.equal(amq.isPaused(a1), false);
    assert.equal(amq.has(b0), false, 'pausing an unknown queue does not add it');
    amq.resume([new MessageQueue('A', 'broker-a', 0), b0]);
    assert.equal(amq.isPaused(a0), false);
    assert.equal(amq.has(b0), false);
    assert.equal(amq.isPaused(b0), true);
  });

  test('the pull offset moves only for the ProcessQueue that pulled', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0]);
    const state = amq.get(a0);
    assert.ok(state !== undefined);
    amq.updatePullOffset(a0, 10n, state.pq);
    assert.equal(state.pullOffset, 10n);
    amq.updatePullOffset(a0, 99n, new ProcessQueue(clock, settings));
    assert.equal(state.pullOffset, 10n, 'a pull of a replaced ProcessQueue is ignored');

    // Dropped and assigned again: a new state and ProcessQueue; the old one's late pull is ignored.
    const oldPq = state.pq;
    amq.updateAll([a1]);
    assert.equal(oldPq.dropped, true);
    amq.updateAll([a0, a1]);
    const again = amq.get(a0);
    assert.ok(again !== undefined);
    assert.notEqual(again.pq, oldPq);
    amq.updatePullOffset(a0, 50n, oldPq);
    assert.equal(again.pullOffset, -1n);
    amq.updatePullOffset(a0, 12n, again.pq);
    assert.equal(again.pullOffset, 12n);
    // Unknown queues are ignored.
    amq.updatePullOffset(b0, 5n, again.pq);
    amq.updateConsumeOffset(b0, 5n);
    amq.setSeekOffset(b0, 5n);
    assert.equal(amq.has(b0), false);
  });

  test('consume and seek offsets are kept per queue', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0, a1]);
    amq.updateConsumeOffset(a0, 7n);
    amq.setSeekOffset(a1, 3n);
    assert.equal(amq.get(a0)?.consumeOffset, 7n);
    assert.equal(amq.get(a0)?.seekOffset, -1n);
    assert.equal(amq.get(a1)?.seekOffset, 3n);
    assert.equal(amq.get(a1)?.consumeOffset, -1n);
  });

  test('updateTopic keeps other topics, drops the queues of that topic no longer assigned', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateTopic('A', [a0, a1]);
    amq.updateTopic('B', [b0]);
    const s0 = amq.get(a0);
    const s1 = amq.get(a1);
    const sb = amq.get(b0);
    assert.ok(s0 !== undefined && s1 !== undefined && sb !== undefined);
    amq.pause([a1]);
    amq.updateTopic('A', [a1]);
    assert.deepEqual(keys(amq), [a1.key, b0.key].sort());
    assert.equal(s0.pq.dropped, true);
    assert.equal(amq.get(a1), s1, 'a queue still assigned keeps its state');
    assert.equal(amq.isPaused(a1), true);
    assert.equal(s1.pq.dropped, false);
    assert.equal(sb.pq.dropped, false);
    amq.updateTopic('A', []);
    assert.deepEqual(keys(amq), [b0.key]);
    assert.equal(s1.pq.dropped, true);
  });

  test('updateAll drops every queue not assigned, whatever its topic', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0, b0]);
    const sa = amq.get(a0);
    const sb = amq.get(b0);
    amq.updateAll([a1, b0]);
    assert.deepEqual(keys(amq), [a1.key, b0.key].sort());
    assert.equal(sa?.pq.dropped, true);
    assert.equal(amq.get(b0), sb);
    assert.equal(sb?.pq.dropped, false);
  });

  test('removeTopic forgets the topic queues', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    amq.updateAll([a0, a1, b0]);
    amq.removeTopic('A');
    assert.deepEqual(keys(amq), [b0.key]);
  });

  test('in subscribe mode a queue takes the rebalance ProcessQueue when there is one', () => {
    const amq = new AssignedMessageQueue(clock, settings);
    const shared = new ProcessQueue(clock, settings);
    amq.processQueueOf = (mq) => (mq.equals(a0) ? shared : undefined);
    amq.updateTopic('A', [a0, a1]);
    assert.equal(amq.get(a0)?.pq, shared);
    assert.ok(amq.get(a1)?.pq instanceof ProcessQueue);
    assert.notEqual(amq.get(a1)?.pq, shared);
  });
});
