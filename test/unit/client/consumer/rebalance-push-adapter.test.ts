/**
 * RebalancePushAdapter against upstream 4.9.8 RebalancePushImpl: computePullFromWhere for every
 * ConsumeFromWhere with a stored offset, none (-1) or a failed read (-2), on normal and retry topics
 * and by timestamp (a fake admin answers maxOffset / searchOffset); removeUnnecessaryMessageQueue
 * (persist, forget, orderly unlock once the batch in flight is done); messageQueueChanged.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReadOffsetType } from '../../../../src/client/consumer/offset/offset-store.js';
import { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import { PullRequest } from '../../../../src/client/consumer/pull/pull-request.js';
import type { PushConsumerOptions } from '../../../../src/client/consumer/push/push-consumer-options.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import { RebalanceImpl } from '../../../../src/client/consumer/rebalance/rebalance-impl.js';
import {
  type PushRebalanceHost,
  RebalancePushAdapter,
} from '../../../../src/client/consumer/rebalance/rebalance-push-adapter.js';
import type { MQAdminImpl } from '../../../../src/client/instance/mq-admin-impl.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { ConsumeFromWhere } from '../../../../src/common/protocol/heartbeat-data.js';
import { buildSubscriptionData } from '../../../../src/filter/filter-api.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import {
  captureLogger,
  drain,
  FakeLockBroker,
  fakeRebalanceHost,
  RecordingOffsetStore,
  resolved,
} from './consumer-fakes.js';

const TIMESTAMP = 1_690_000_000_000;

function setup(overrides: Omit<Partial<PushConsumerOptions>, 'consumerGroup'> = {}, orderly = false) {
  const clock = new ManualClock();
  const log = captureLogger();
  const store = new RecordingOffsetStore();
  const broker = new FakeLockBroker();
  const adminCalls: string[] = [];
  let adminFails = false;
  const admin = {
    async maxOffset(mq: MessageQueue): Promise<bigint> {
      adminCalls.push(`max ${mq.topic}/${mq.queueId}`);
      if (adminFails) throw new Error('broker gone');
      return 900n;
    },
    async searchOffset(mq: MessageQueue, timestamp: bigint): Promise<bigint> {
      adminCalls.push(`search ${mq.topic}/${mq.queueId} ${timestamp}`);
      if (adminFails) throw new Error('broker gone');
      return 300n;
    },
  } as unknown as MQAdminImpl;
  const dispatched: PullRequest[] = [];
  let heartbeats = 0;
  const options = resolved({ consumeTimestamp: TIMESTAMP, ...overrides });
  // The adapter and the RebalanceImpl point at each other, as in the consumer.
  const host: PushRebalanceHost = {
    options,
    offsetStore: store,
    admin,
    clock,
    logger: log.logger,
    rebalance: undefined as unknown as RebalanceImpl,
    isConsumeOrderly: () => orderly,
    apiCallOptions: () => ({ timeoutMs: 3000 }),
    executePullRequestImmediately: (r) => void dispatched.push(r),
    executePopRequestImmediately: () => undefined,
    sendHeartbeat: () => void heartbeats++,
  };
  const adapter = new RebalancePushAdapter(host);
  const rebalance = new RebalanceImpl(
    {
      consumerGroup: 'cg',
      messageModel: options.messageModel,
      strategy: new AllocateMessageQueueAveragely(),
      processQueue: { lockMaxLiveTime: options.lockMaxLiveTime, pullMaxIdleTime: options.pullMaxIdleTime },
    },
    fakeRebalanceHost(broker),
    adapter,
    clock,
    log.logger,
  );
  (host as { rebalance: RebalanceImpl }).rebalance = rebalance;
  return {
    clock,
    log,
    store,
    broker,
    adapter,
    rebalance,
    options,
    adminCalls,
    dispatched,
    heartbeats: () => heartbeats,
    failAdmin: () => {
      adminFails = true;
    },
  };
}

const normal = new MessageQueue('T', 'broker-a', 1);
const retry = new MessageQueue('%RETRY%cg', 'broker-a', 0);

describe('computePullFromWhere', () => {
  /** [consumeFromWhere, topic, what a new group (-1) starts at] */
  const newGroup: Array<[ConsumeFromWhere, MessageQueue, bigint, string | undefined]> = [];
  for (const w of [
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST,
    ConsumeFromWhere.CONSUME_FROM_MIN_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_MAX_OFFSET,
  ]) {
    newGroup.push([w, normal, 900n, 'max T/1']);
    newGroup.push([w, retry, 0n, undefined]);
  }
  newGroup.push([ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET, normal, 0n, undefined]);
  newGroup.push([ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET, retry, 0n, undefined]);
  newGroup.push([ConsumeFromWhere.CONSUME_FROM_TIMESTAMP, normal, 300n, `search T/1 ${TIMESTAMP}`]);
  newGroup.push([ConsumeFromWhere.CONSUME_FROM_TIMESTAMP, retry, 900n, 'max %RETRY%cg/0']);

  for (const [where, mq, want, adminCall] of newGroup) {
    test(`${where}, ${mq.topic}: stored 42 → 42, none → ${want}, read failed → -1`, async () => {
      const { store, adapter, adminCalls } = setup({ consumeFromWhere: where });
      store.stored.set(mq.key, 42n);
      assert.equal(await adapter.computePullFromWhere(mq), 42n);
      store.stored.set(mq.key, 0n);
      assert.equal(await adapter.computePullFromWhere(mq), 0n, 'a stored 0 is an offset');
      store.stored.set(mq.key, -2n);
      assert.equal(await adapter.computePullFromWhere(mq), -1n);
      assert.deepEqual(adminCalls, [], 'the admin is asked only for a new group');
      store.stored.set(mq.key, -1n);
      assert.equal(await adapter.computePullFromWhere(mq), want);
      assert.deepEqual(adminCalls, adminCall === undefined ? [] : [adminCall]);
      assert.ok(store.reads.every((t) => t === ReadOffsetType.READ_FROM_STORE));
    });
  }

  test('an admin failure for a new group is thrown (rebalance skips the queue) with a warn line', async () => {
    for (const where of [
      ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
      ConsumeFromWhere.CONSUME_FROM_TIMESTAMP,
    ]) {
      const { adapter, failAdmin, log } = setup({ consumeFromWhere: where });
      failAdmin();
      await assert.rejects(adapter.computePullFromWhere(normal), /broker gone/);
      assert.equal(log.lines('warn').length, 1);
    }
  });
});

describe('removeUnnecessaryMessageQueue', () => {
  test('concurrently: persists and forgets the offset, never unlocks', async () => {
    const { store, broker, adapter } = setup();
    const pq = new ProcessQueue(new ManualClock());
    assert.equal(await adapter.removeUnnecessaryMessageQueue(normal, pq), true);
    assert.deepEqual(store.persisted, [normal.key]);
    assert.deepEqual(store.removed, [normal.key]);
    assert.deepEqual(broker.calls, []);
  });

  test('orderly broadcasting: no broker lock to release', async () => {
    const { broker, adapter } = setup({ messageModel: 'BROADCASTING' }, true);
    assert.equal(
      await adapter.removeUnnecessaryMessageQueue(normal, new ProcessQueue(new ManualClock())),
      true,
    );
    assert.deepEqual(broker.calls, []);
  });

  test('orderly clustering: unlocks at once (oneway) when no batch is in flight', async () => {
    const { store, broker, adapter, clock } = setup({}, true);
    const pq = new ProcessQueue(clock);
    pq.locked = true;
    broker.holders.set(normal.key, 'c1');
    assert.equal(await adapter.removeUnnecessaryMessageQueue(normal, pq), true);
    assert.deepEqual(broker.calls, [{ code: RequestCode.UNLOCK_BATCH_MQ, oneway: true, mqs: [normal.key] }]);
    assert.equal(broker.holders.size, 0);
    assert.equal(pq.locked, false);
    assert.equal(pq.consumeLock.isHeld, false);
    assert.deepEqual(store.persisted, [normal.key]);
  });

  test('orderly clustering: waits up to 1 s for the batch in flight, then unlocks', async () => {
    const { broker, adapter, clock } = setup({}, true);
    const pq = new ProcessQueue(clock);
    pq.consumeLock.tryLock();
    let answer: boolean | undefined;
    const removing = adapter.removeUnnecessaryMessageQueue(normal, pq).then((ok) => {
      answer = ok;
    });
    await drain();
    clock.advance(999);
    await drain();
    assert.equal(answer, undefined);
    pq.consumeLock.unlock(); // the listener returned
    await removing;
    assert.equal(answer, true);
    assert.equal(broker.calls.length, 1);
  });

  test('orderly clustering: a batch still in flight after 1 s keeps the queue (false) and counts a try', async () => {
    const { broker, adapter, clock, log } = setup({}, true);
    const pq = new ProcessQueue(clock);
    pq.locked = true;
    pq.consumeLock.tryLock();
    const removing = adapter.removeUnnecessaryMessageQueue(normal, pq);
    await drain();
    clock.advance(1000);
    assert.equal(await removing, false);
    assert.equal(pq.tryUnlockTimes, 1);
    assert.equal(pq.locked, true);
    assert.deepEqual(broker.calls, []);
    assert.ok(log.lines('warn').some((r) => r.msg.includes('can not unlock')));
    pq.consumeLock.unlock();
    assert.equal(pq.consumeLock.isHeld, false, 'the timed-out wait did not take the lock');
  });
});

describe('messageQueueChanged and dispatchPullRequest', () => {
  test('a new subscription version, topic thresholds spread over the held queues, a heartbeat', async () => {
    const { clock, adapter, rebalance, options, heartbeats } = setup({
      pullThresholdForTopic: 10,
      pullThresholdSizeForTopic: 3,
    });
    rebalance.subscriptionInner.set('T', buildSubscriptionData('T', '*', { subVersion: 1n }));
    for (let i = 0; i < 4; i++) {
      const mq = new MessageQueue('T', 'broker-a', i);
      rebalance.processQueueTable.set(mq.key, { mq, pq: new ProcessQueue(clock) });
    }
    clock.advance(77);
    adapter.messageQueueChanged('T');
    assert.equal(rebalance.subscriptionInner.get('T')?.subVersion, BigInt(clock.now()));
    assert.equal(options.pullThresholdForQueue, 2, '10 / 4');
    assert.equal(options.pullThresholdSizeForQueue, 1, 'max(1, 3 / 4)');
    assert.equal(heartbeats(), 1);
  });

  test('thresholds off (-1) or no queue held leave the per-queue ones alone', async () => {
    const { adapter, options, rebalance, heartbeats } = setup({ pullThresholdForTopic: 10 });
    adapter.messageQueueChanged('T');
    assert.equal(options.pullThresholdForQueue, 1000);
    const mq = new MessageQueue('T', 'broker-a', 0);
    rebalance.processQueueTable.set(mq.key, { mq, pq: new ProcessQueue(new ManualClock()) });
    adapter.messageQueueChanged('T');
    assert.equal(options.pullThresholdForQueue, 10);
    assert.equal(options.pullThresholdSizeForQueue, 100);
    assert.equal(heartbeats(), 2);
  });

  test('each pull request goes to the pull service at once', () => {
    const { adapter, dispatched } = setup();
    const pq = new ProcessQueue(new ManualClock());
    const requests = [new PullRequest('cg', normal, pq, 5n), new PullRequest('cg', retry, pq, 0n)];
    adapter.dispatchPullRequest(requests);
    assert.deepEqual(dispatched, requests);
  });
});
