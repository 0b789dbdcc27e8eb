/**
 * RebalanceImpl against upstream 4.9.8 RebalanceImpl, with a fake RebalanceHost (a broker lock
 * table behind real LOCK/UNLOCK_BATCH_MQ codecs) and a fake adapter, no network: queues and ids
 * sorted as Java sorts them, the allocation applied (new queues get a ProcessQueue and a PullRequest
 * at computePullFromWhere's offset, lost ones go through removeUnnecessaryMessageQueue and stay when
 * it refuses), stalled push queues rebuilt, topics no longer subscribed truncated, broadcasting,
 * strategy failures and missing member lists leaving everything as it was, orderly locking.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import type { PullRequest } from '../../../../src/client/consumer/pull/pull-request.js';
import type { AllocateMessageQueueStrategy } from '../../../../src/client/consumer/rebalance/allocate/allocate-message-queue-strategy.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import {
  type RebalanceAdapter,
  RebalanceImpl,
} from '../../../../src/client/consumer/rebalance/rebalance-impl.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { ConsumeType, type MessageModel } from '../../../../src/common/protocol/heartbeat-data.js';
import { buildSubscriptionData } from '../../../../src/filter/filter-api.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import { captureLogger, FakeLockBroker, fakeRebalanceHost, queues } from './consumer-fakes.js';

class FakeAdapter implements RebalanceAdapter {
  type: ConsumeType = ConsumeType.CONSUME_PASSIVELY;
  /** Queue keys removeUnnecessaryMessageQueue refuses (answers false). */
  readonly refuseRemoval = new Set<string>();
  /** Start offsets by queue key; absent → 0n; an Error → thrown. */
  readonly startOffsets = new Map<string, bigint | Error>();
  readonly removed: string[] = [];
  readonly dirty: string[] = [];
  readonly changes: Array<{ topic: string; all: string[]; divided: string[] }> = [];
  readonly dispatched: PullRequest[] = [];

  consumeType(): ConsumeType {
    return this.type;
  }
  messageQueueChanged(
    topic: string,
    mqAll: readonly MessageQueue[],
    mqDivided: readonly MessageQueue[],
  ): void {
    this.changes.push({ topic, all: mqAll.map((m) => m.key), divided: mqDivided.map((m) => m.key) });
  }
  async removeUnnecessaryMessageQueue(mq: MessageQueue, pq: ProcessQueue): Promise<boolean> {
    assert.equal(pq.dropped, true, 'dropped before removeUnnecessaryMessageQueue runs');
    this.removed.push(mq.key);
    return !this.refuseRemoval.has(mq.key);
  }
  removeDirtyOffset(mq: MessageQueue): void {
    this.dirty.push(mq.key);
  }
  async computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    const v = this.startOffsets.get(mq.key) ?? 0n;
    if (v instanceof Error) throw v;
    return v;
  }
  dispatchPullRequest(requests: readonly PullRequest[]): void {
    this.dispatched.push(...requests);
  }
}

/** Records the arguments it was called with, then delegates. */
class RecordingStrategy implements AllocateMessageQueueStrategy {
  readonly name = 'REC';
  readonly calls: Array<{ group: string; cid: string; mqAll: MessageQueue[]; cidAll: string[] }> = [];
  inner: AllocateMessageQueueStrategy = new AllocateMessageQueueAveragely();
  allocate(
    group: string,
    cid: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    this.calls.push({ group, cid, mqAll: [...mqAll], cidAll: [...cidAll] });
    return this.inner.allocate(group, cid, mqAll, cidAll);
  }
}

function setup(messageModel: MessageModel = 'CLUSTERING', clientId = 'c1') {
  const clock = new ManualClock();
  const broker = new FakeLockBroker();
  const host = fakeRebalanceHost(broker, clientId);
  const adapter = new FakeAdapter();
  const strategy = new RecordingStrategy();
  const log = captureLogger();
  const rebalance = new RebalanceImpl(
    {
      consumerGroup: 'cg',
      messageModel,
      strategy,
      processQueue: { lockMaxLiveTime: 30_000, pullMaxIdleTime: 120_000 },
    },
    host,
    adapter,
    clock,
    log.logger,
  );
  const subscribe = (topic: string, mqs: MessageQueue[]) => {
    rebalance.subscriptionInner.set(topic, buildSubscriptionData(topic, '*'));
    rebalance.topicSubscribeInfoTable.set(topic, mqs);
  };
  const held = () =>
    [...rebalance.processQueueTable.values()].map(({ mq }) => `${mq.brokerName}/${mq.queueId}`).sort();
  return { clock, broker, host, adapter, strategy, log, rebalance, subscribe, held };
}

describe('RebalanceImpl clustering', () => {
  test('sorts mqAll by MessageQueue.compareTo and cidAll by String.compareTo before allocating', async () => {
    const { host, strategy, rebalance, subscribe } = setup('CLUSTERING', '192.168.0.10@9');
    const mq = (b: string, q: number) => new MessageQueue('T', b, q);
    subscribe('T', [
      mq('broker-b', 1),
      mq('broker-a', 10),
      mq('broker-a', 2),
      mq('Broker-c', 0),
      mq('broker-a', 0),
    ]);
    host.cidAll = ['192.168.0.10@9', '192.168.0.9@9', '10.0.0.1@1', 'Zed', 'alpha', '192.168.0.10@10'];
    await rebalance.doRebalance(false);
    assert.equal(strategy.calls.length, 1);
    const call = strategy.calls[0];
    assert.equal(call?.group, 'cg');
    assert.equal(call?.cid, '192.168.0.10@9');
    // Java: upper case before lower case, queue ids as numbers.
    assert.deepEqual(
      call?.mqAll.map((m) => `${m.brokerName}/${m.queueId}`),
      ['Broker-c/0', 'broker-a/0', 'broker-a/2', 'broker-a/10', 'broker-b/1'],
    );
    assert.deepEqual(call?.cidAll, [
      '10.0.0.1@1',
      '192.168.0.10@10',
      '192.168.0.10@9',
      '192.168.0.9@9',
      'Zed',
      'alpha',
    ]);
  });

  test('new queues get a locked-as-new ProcessQueue and a PullRequest at computePullFromWhere', async () => {
    const { host, adapter, rebalance, subscribe, held } = setup();
    const mqs = queues('T', 'broker-a', 4);
    subscribe('T', mqs);
    host.cidAll = ['c2', 'c1'];
    for (const m of mqs) adapter.startOffsets.set(m.key, BigInt(100 + m.queueId));
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1'], 'c1 sorts first: the first two queues');
    assert.deepEqual(
      adapter.dispatched.map((r) => [r.messageQueue.queueId, r.nextOffset, r.consumerGroup]),
      [
        [0, 100n, 'cg'],
        [1, 101n, 'cg'],
      ],
    );
    for (const r of adapter.dispatched) {
      assert.equal(rebalance.processQueueOf(r.messageQueue), r.processQueue);
      assert.equal(r.processQueue.locked, true, 'upstream marks a new ProcessQueue locked');
    }
    assert.deepEqual(adapter.dirty, [mqs[0]?.key, mqs[1]?.key]);
    assert.deepEqual(adapter.changes, [
      { topic: 'T', all: mqs.map((m) => m.key), divided: [mqs[0]?.key, mqs[1]?.key] },
    ]);
    // Same members, same result: nothing changes and nothing is dispatched again.
    await rebalance.doRebalance(false);
    assert.equal(adapter.dispatched.length, 2);
    assert.equal(adapter.changes.length, 1);
  });

  test('lost queues are removed through removeUnnecessaryMessageQueue; one it refuses stays', async () => {
    const { host, adapter, rebalance, subscribe, held } = setup();
    const mqs = queues('T', 'broker-a', 4);
    subscribe('T', mqs);
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1', 'broker-a/2', 'broker-a/3']);
    const old0 = rebalance.processQueueOf(mqs[0] as MessageQueue) as ProcessQueue;
    const old1 = rebalance.processQueueOf(mqs[1] as MessageQueue) as ProcessQueue;
    host.cidAll = ['c0', 'c1'];
    adapter.refuseRemoval.add(mqs[1]?.key as string);
    await rebalance.doRebalance(false);
    assert.deepEqual(adapter.removed, [mqs[0]?.key, mqs[1]?.key]);
    assert.equal(old0.dropped, true);
    assert.equal(old1.dropped, true);
    assert.deepEqual(held(), ['broker-a/1', 'broker-a/2', 'broker-a/3'], 'the refused queue is kept');
    assert.equal(adapter.changes.length, 2, 'q0 removed: changed');
    // Next round it lets go.
    adapter.refuseRemoval.clear();
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/2', 'broker-a/3']);
    assert.equal(adapter.dispatched.length, 4, 'no queue re-added');
  });

  test('a start offset that fails or is negative leaves the queue out until the next rebalance', async () => {
    const { adapter, log, rebalance, subscribe, held } = setup();
    const mqs = queues('T', 'broker-a', 3);
    subscribe('T', mqs);
    adapter.startOffsets.set(mqs[0]?.key as string, new Error('broker busy'));
    adapter.startOffsets.set(mqs[1]?.key as string, -1n);
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/2']);
    assert.deepEqual(
      adapter.dispatched.map((r) => r.messageQueue.queueId),
      [2],
    );
    assert.ok(log.records.some((r) => r.msg.includes('compute offset failed')));
    assert.ok(log.lines('warn').some((r) => r.msg.includes('add new mq failed')));
    adapter.startOffsets.clear();
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1', 'broker-a/2']);
  });

  test('push queues whose pulls stalled are rebuilt; a pull consumer keeps them', async () => {
    for (const type of [ConsumeType.CONSUME_PASSIVELY, ConsumeType.CONSUME_ACTIVELY]) {
      const { clock, adapter, log, rebalance, subscribe } = setup();
      adapter.type = type;
      const mqs = queues('T', 'broker-a', 2);
      subscribe('T', mqs);
      await rebalance.doRebalance(false);
      const before = rebalance.processQueueOf(mqs[0] as MessageQueue) as ProcessQueue;
      const fresh = rebalance.processQueueOf(mqs[1] as MessageQueue) as ProcessQueue;
      clock.advance(120_001);
      fresh.lastPullTimestamp = clock.now();
      await rebalance.doRebalance(false);
      const after = rebalance.processQueueOf(mqs[0] as MessageQueue);
      if (type === ConsumeType.CONSUME_PASSIVELY) {
        assert.equal(before.dropped, true);
        assert.notEqual(after, before, 'a new ProcessQueue');
        assert.equal(after?.dropped, false);
        assert.deepEqual(adapter.removed, [mqs[0]?.key]);
        assert.deepEqual(
          adapter.dispatched.map((r) => r.messageQueue.queueId),
          [0, 1, 0],
        );
        assert.ok(log.lines('error').some((r) => r.msg.includes('pulls stopped')));
      } else {
        assert.equal(after, before);
        assert.equal(before.dropped, false);
        assert.deepEqual(adapter.removed, []);
      }
      assert.equal(rebalance.processQueueOf(mqs[1] as MessageQueue), fresh);
    }
  });

  test('queues of a topic no longer subscribed are dropped without removeUnnecessaryMessageQueue', async () => {
    const { adapter, rebalance, subscribe, held } = setup();
    subscribe('T', queues('T', 'broker-a', 2));
    subscribe('U', queues('U', 'broker-a', 1));
    await rebalance.doRebalance(false);
    assert.equal(rebalance.processQueueTable.size, 3);
    const pqs = [...rebalance.processQueueTable.values()].filter((h) => h.mq.topic === 'T').map((h) => h.pq);
    rebalance.subscriptionInner.delete('T');
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0']);
    assert.equal([...rebalance.processQueueTable.values()][0]?.mq.topic, 'U');
    assert.ok(pqs.every((pq) => pq.dropped));
    assert.deepEqual(adapter.removed, [], 'upstream truncates without persisting (the pull path stops)');
  });

  test('the strategy throwing changes nothing and leaves an error line', async () => {
    const { host, adapter, strategy, log, rebalance, subscribe, held } = setup();
    subscribe('T', queues('T', 'broker-a', 4));
    await rebalance.doRebalance(false);
    const before = held();
    strategy.inner = {
      name: 'BOOM',
      allocate() {
        throw new Error('strategy bug');
      },
    };
    host.cidAll = ['c0', 'c1'];
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), before);
    assert.deepEqual(adapter.removed, []);
    assert.equal(adapter.dispatched.length, 4);
    const errors = log.lines('error');
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]?.fields.error), /strategy bug/);
  });

  test('no member list (broker unreachable) or no route changes nothing', async () => {
    const { host, adapter, log, rebalance, subscribe, held } = setup();
    subscribe('T', queues('T', 'broker-a', 2));
    await rebalance.doRebalance(false);
    host.cidAll = undefined;
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1']);
    assert.ok(log.lines('warn').some((r) => r.msg.includes('get consumer id list failed')));
    host.cidAll = ['c1'];
    rebalance.topicSubscribeInfoTable.delete('T');
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1']);
    assert.ok(log.lines('warn').some((r) => r.msg.includes('topic does not exist')));
    assert.deepEqual(adapter.removed, []);
    // The retry topic has no route until a message is retried: no warn line for it.
    rebalance.subscriptionInner.set('%RETRY%cg', buildSubscriptionData('%RETRY%cg', '*'));
    await rebalance.doRebalance(false);
    assert.equal(log.records.filter((r) => r.level !== 'debug' && r.fields.topic === '%RETRY%cg').length, 0);
  });

  test('a strategy answering the same queue twice yields one PullRequest', async () => {
    const { adapter, strategy, rebalance, subscribe } = setup();
    const mqs = queues('T', 'broker-a', 2);
    subscribe('T', mqs);
    strategy.inner = {
      name: 'DUP',
      allocate: () => [mqs[0] as MessageQueue, new MessageQueue('T', 'broker-a', 0)],
    };
    await rebalance.doRebalance(false);
    assert.deepEqual(
      adapter.dispatched.map((r) => r.messageQueue.queueId),
      [0],
    );
  });

  test('removeProcessQueue drops and removes one queue (OFFSET_ILLEGAL)', async () => {
    const { adapter, rebalance, subscribe, held } = setup();
    const mqs = queues('T', 'broker-a', 2);
    subscribe('T', mqs);
    await rebalance.doRebalance(false);
    const pq = rebalance.processQueueOf(mqs[1] as MessageQueue) as ProcessQueue;
    await rebalance.removeProcessQueue(mqs[1] as MessageQueue);
    assert.equal(pq.dropped, true);
    assert.deepEqual(held(), ['broker-a/0']);
    assert.deepEqual(adapter.removed, [mqs[1]?.key]);
    await rebalance.removeProcessQueue(mqs[1] as MessageQueue);
    assert.deepEqual(adapter.removed, [mqs[1]?.key], 'unknown queue: nothing');
  });
});

describe('RebalanceImpl broadcasting', () => {
  test('takes every queue of the route without asking members or the strategy', async () => {
    const { host, adapter, strategy, rebalance, subscribe, held } = setup('BROADCASTING');
    const mqs = [...queues('T', 'broker-b', 2), ...queues('T', 'broker-a', 2)];
    subscribe('T', mqs);
    host.cidAll = undefined;
    await rebalance.doRebalance(false);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1', 'broker-b/0', 'broker-b/1']);
    assert.equal(strategy.calls.length, 0);
    assert.deepEqual(adapter.changes, [
      { topic: 'T', all: mqs.map((m) => m.key), divided: mqs.map((m) => m.key) },
    ]);
    rebalance.topicSubscribeInfoTable.set('T', mqs.slice(1));
    await rebalance.doRebalance(false);
    assert.equal(rebalance.processQueueTable.size, 3);
  });
});

describe('RebalanceImpl orderly', () => {
  test('a queue another member holds is not added and lockPending is set', async () => {
    const { broker, adapter, clock, rebalance, subscribe, held } = setup();
    const mqs = queues('T', 'broker-a', 3);
    subscribe('T', mqs);
    broker.others.add(mqs[1]?.key as string);
    clock.advance(5);
    await rebalance.doRebalance(true);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/2']);
    assert.equal(rebalance.lockPending, true);
    for (const mq of [mqs[0], mqs[2]]) {
      const pq = rebalance.processQueueOf(mq as MessageQueue) as ProcessQueue;
      assert.equal(pq.locked, true);
      assert.equal(broker.holders.get(mq?.key as string), 'c1');
    }
    assert.deepEqual(
      adapter.dispatched.map((r) => r.messageQueue.queueId),
      [0, 2],
    );
    // The other member lets go: the next rebalance locks and adds it, and nothing is pending.
    broker.others.clear();
    await rebalance.doRebalance(true);
    assert.deepEqual(held(), ['broker-a/0', 'broker-a/1', 'broker-a/2']);
    assert.equal(rebalance.lockPending, false);
  });

  test('a broker that cannot be reached or found counts as a lock failure', async () => {
    const { broker, host, rebalance, subscribe, held } = setup();
    subscribe('T', [...queues('T', 'broker-a', 1), ...queues('T', 'broker-x', 1)]);
    host.brokers.delete('broker-x');
    broker.failNext = 1;
    await rebalance.doRebalance(true);
    assert.deepEqual(held(), []);
    assert.equal(rebalance.lockPending, true);
    await rebalance.doRebalance(true);
    assert.deepEqual(held(), ['broker-a/0']);
  });

  test('lock, lockAll and unlockAll keep the ProcessQueues in step with the broker', async () => {
    const { broker, clock, rebalance, subscribe } = setup();
    const a = queues('T', 'broker-a', 2);
    const b = queues('T', 'broker-b', 2);
    subscribe('T', [...a, ...b]);
    await rebalance.doRebalance(true);
    assert.equal(rebalance.processQueueTable.size, 4);
    const pq = (mq: MessageQueue | undefined) => rebalance.processQueueOf(mq as MessageQueue) as ProcessQueue;

    // Renewal: one LOCK_BATCH_MQ per broker; a queue the broker refuses now is marked unlocked.
    broker.calls.length = 0;
    broker.holders.set(a[1]?.key as string, 'c9');
    clock.advance(1000);
    await rebalance.lockAll();
    assert.deepEqual(
      broker.calls.map((c) => [c.code, c.mqs.length]),
      [
        [RequestCode.LOCK_BATCH_MQ, 2],
        [RequestCode.LOCK_BATCH_MQ, 2],
      ],
    );
    assert.equal(pq(a[0]).locked, true);
    assert.equal(pq(a[0]).lastLockTimestamp, clock.now());
    assert.equal(pq(a[1]).locked, false);
    assert.ok(pq(a[1]).lastLockTimestamp < clock.now());
    assert.equal(pq(b[0]).lastLockTimestamp, clock.now());

    // A broker that fails leaves its queues' state alone.
    clock.advance(1000);
    broker.failNext = 1;
    await rebalance.lockAll();
    const renewedA = pq(a[0]).lastLockTimestamp;
    const renewedB = pq(b[0]).lastLockTimestamp;
    assert.equal(renewedA === clock.now() || renewedB === clock.now(), true, 'the other broker renewed');
    assert.notEqual(renewedA, renewedB);

    // lock(mq): true once held, and the ProcessQueue marked.
    broker.holders.delete(a[1]?.key as string);
    assert.equal(await rebalance.lock(a[1] as MessageQueue), true);
    assert.equal(pq(a[1]).locked, true);
    broker.others.add(b[1]?.key as string);
    broker.holders.delete(b[1]?.key as string);
    assert.equal(await rebalance.lock(b[1] as MessageQueue), false);

    // unlockAll: one UNLOCK_BATCH_MQ per broker, oneway as asked, every ProcessQueue unlocked.
    broker.calls.length = 0;
    await rebalance.unlockAll(true);
    assert.deepEqual(
      broker.calls.map((c) => [c.code, c.oneway, c.mqs.length]),
      [
        [RequestCode.UNLOCK_BATCH_MQ, true, 2],
        [RequestCode.UNLOCK_BATCH_MQ, true, 2],
      ],
    );
    for (const mq of [...a, ...b]) assert.equal(pq(mq).locked, false);
    assert.equal(broker.holders.size, 0);
  });

  test('unlock of one queue asks its master; an unknown broker is skipped', async () => {
    const { broker, host, rebalance } = setup();
    const mq = new MessageQueue('T', 'broker-a', 0);
    broker.holders.set(mq.key, 'c1');
    await rebalance.unlock(mq, false);
    assert.deepEqual(broker.calls, [{ code: RequestCode.UNLOCK_BATCH_MQ, oneway: false, mqs: [mq.key] }]);
    assert.equal(broker.holders.size, 0);
    host.brokers.clear();
    await rebalance.unlock(mq, false);
    assert.equal(await rebalance.lock(mq), false);
    assert.equal(broker.calls.length, 1);
  });
});
