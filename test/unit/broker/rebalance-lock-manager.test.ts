/** RebalanceLockManager on a hand-driven clock: who gets a queue, renewal, expiry, holder-only unlock. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  REBALANCE_LOCK_MAX_LIVE_TIME,
  RebalanceLockManager,
} from '../../../src/broker/client/rebalance-lock-manager.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { capturingLogger, ManualClock } from './helpers.js';

const q = (id: number, topic = 'T') => new MessageQueue(topic, 'broker-a', id);
const ids = (mqs: MessageQueue[]) => mqs.map((m) => `${m.topic}/${m.queueId}`);

function setup(lockMaxLiveTime?: number) {
  const clock = new ManualClock();
  const { logger, records } = capturingLogger();
  const manager = new RebalanceLockManager({
    clock,
    logger,
    ...(lockMaxLiveTime === undefined ? {} : { lockMaxLiveTime }),
  });
  return { clock, manager, records };
}

describe('RebalanceLockManager', () => {
  test('locks live 60 s by default, as upstream', () => {
    assert.equal(REBALANCE_LOCK_MAX_LIVE_TIME, 60_000);
    assert.equal(setup().manager.lockMaxLiveTime, 60_000);
  });

  test('a free queue goes to the first client; others get it only after the lock expires', () => {
    const { clock, manager } = setup();
    assert.deepEqual(ids(manager.tryLockBatch('g', [q(0), q(1)], 'A')), ['T/0', 'T/1']);
    assert.deepEqual(ids(manager.tryLockBatch('g', [q(0), q(1), q(2)], 'B')), ['T/2']);
    assert.equal(manager.lockHolder('g', q(0)), 'A');
    clock.advance(60_000);
    // Expired means strictly older than the live time.
    assert.equal(manager.tryLock('g', q(0), 'B'), false);
    clock.advance(1);
    assert.equal(manager.lockHolder('g', q(0)), undefined);
    assert.equal(manager.tryLock('g', q(0), 'B'), true);
    assert.equal(manager.lockHolder('g', q(0)), 'B');
    assert.equal(manager.tryLock('g', q(0), 'A'), false);
    // A's other lock expired too and nobody took it: A gets it back.
    assert.equal(manager.tryLock('g', q(1), 'A'), true);
  });

  test('locking again renews: the holder keeps the queue as long as it renews in time', () => {
    const { clock, manager } = setup();
    manager.tryLockBatch('g', [q(0)], 'A');
    for (let i = 0; i < 5; i++) {
      clock.advance(50_000);
      assert.deepEqual(ids(manager.tryLockBatch('g', [q(0)], 'A')), ['T/0']);
      assert.deepEqual(manager.tryLockBatch('g', [q(0)], 'B'), []);
    }
    clock.advance(60_001);
    assert.deepEqual(ids(manager.tryLockBatch('g', [q(0)], 'B')), ['T/0']);
  });

  test('a lookup does not renew', () => {
    const { clock, manager } = setup(1000);
    manager.tryLock('g', q(0), 'A');
    clock.advance(900);
    assert.equal(manager.lockHolder('g', q(0)), 'A');
    clock.advance(101);
    assert.equal(manager.lockHolder('g', q(0)), undefined);
  });

  test('the answer lists renewed queues first, then newly taken ones, each once', () => {
    const { manager } = setup();
    manager.tryLockBatch('g', [q(3), q(1)], 'A');
    manager.tryLockBatch('g', [q(2)], 'B');
    assert.deepEqual(ids(manager.tryLockBatch('g', [q(0), q(1), q(2), q(3), q(0), q(4)], 'A')), [
      'T/1',
      'T/3',
      'T/0',
      'T/4',
    ]);
  });

  test('groups and topics are independent', () => {
    const { manager } = setup();
    assert.equal(manager.tryLock('g1', q(0), 'A'), true);
    assert.equal(manager.tryLock('g2', q(0), 'B'), true);
    assert.equal(manager.tryLock('g1', q(0, 'U'), 'B'), true);
    assert.equal(manager.tryLock('g1', new MessageQueue('T', 'broker-b', 0), 'B'), true);
    assert.equal(manager.lockHolder('g1', q(0)), 'A');
    assert.equal(manager.lockHolder('g2', q(0)), 'B');
  });

  test('only the holder unlocks, even an expired lock; unlocking what is not held changes nothing', () => {
    const { clock, manager, records } = setup();
    manager.tryLockBatch('g', [q(0), q(1)], 'A');
    manager.unlockBatch('g', [q(0), q(1), q(2)], 'B');
    assert.equal(manager.lockHolder('g', q(0)), 'A');
    assert.equal(manager.tryLock('g', q(0), 'B'), false);
    manager.unlockBatch('g', [q(0)], 'A');
    assert.equal(manager.lockHolder('g', q(0)), undefined);
    assert.equal(manager.tryLock('g', q(0), 'B'), true);
    clock.advance(60_001);
    manager.unlockBatch('g', [q(1)], 'A');
    manager.unlockBatch('nobody', [q(1)], 'A');
    const warnings = records.filter((r) => r.level === 'warn').map((r) => r.msg);
    assert.deepEqual(warnings, [
      'unlockBatch, but mq locked by other client',
      'unlockBatch, but mq locked by other client',
      'unlockBatch, but mq not locked',
      'tryLockBatch, message queue locked by other client',
      'unlockBatch, group not exist',
    ]);
    // Unlocking the last lock of a group forgets the group.
    manager.unlockBatch('g', [q(0)], 'B');
    manager.unlockBatch('g', [q(0)], 'B');
    assert.equal(records.at(-1)?.msg, 'unlockBatch, group not exist');
  });
});
