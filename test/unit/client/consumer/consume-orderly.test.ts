/**
 * ConsumeMessageOrderlyService against upstream 4.9.8, on a fake ConsumeHost (the real RebalanceImpl
 * with a fake broker lock table) and a ManualClock: one listener call at a time per queue while
 * different queues run side by side, SUCCESS commits, SUSPEND puts the batch back in order and
 * retries after the clamped pause, autoCommit false with COMMIT / ROLLBACK, the DLQ after
 * maxReconsumeTimes through the inner producer, a lost or expired broker lock retried later, the
 * worker yielding after maxTimeConsumeContinuously, lock renewal, and shutdown unlocking.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConsumeMessageOrderlyService } from '../../../../src/client/consumer/consume/consume-message-orderly-service.js';
import type {
  ConsumeOrderlyContext,
  ConsumeOrderlyStatus,
  MessageListenerOrderly,
} from '../../../../src/client/consumer/listener.js';
import type { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import type { PushConsumerOptions } from '../../../../src/client/consumer/push/push-consumer-options.js';
import type { MessageExt } from '../../../../src/common/message/message.js';
import type { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import { fakeConsumeHost, recordingHook } from './consume-host-fake.js';
import { deferred, drain, msgAt, offsets, until } from './consumer-fakes.js';

type Answer = (msgs: MessageExt[], ctx: ConsumeOrderlyContext) => unknown;

interface Call {
  queueId: number;
  offsets: number[];
  reconsumeTimes: number[];
  at: number;
}

function setup(answer: Answer, overrides: Omit<Partial<PushConsumerOptions>, 'consumerGroup'> = {}) {
  const host = fakeConsumeHost(overrides, true);
  const calls: Call[] = [];
  const inFlight = new Map<number, number>();
  let overlapped = false;
  let maxParallel = 0;
  const listener: MessageListenerOrderly = {
    type: 'orderly',
    async consumeMessage(msgs, ctx) {
      const q = ctx.messageQueue.queueId;
      calls.push({
        queueId: q,
        offsets: offsets(msgs),
        reconsumeTimes: msgs.map((m) => m.reconsumeTimes),
        at: host.clock.now(),
      });
      if ((inFlight.get(q) ?? 0) > 0) overlapped = true;
      inFlight.set(q, (inFlight.get(q) ?? 0) + 1);
      maxParallel = Math.max(
        maxParallel,
        [...inFlight.values()].reduce((a, b) => a + b, 0),
      );
      try {
        return (await answer(msgs, ctx)) as ConsumeOrderlyStatus;
      } finally {
        inFlight.set(q, (inFlight.get(q) ?? 0) - 1);
      }
    },
  };
  const service = new ConsumeMessageOrderlyService(host, listener);
  /** As the pull path does: cache the messages, then submit (a request only when none runs). */
  const deliver = (held: { mq: MessageQueue; pq: ProcessQueue }, msgs: MessageExt[]) => {
    const dispatch = held.pq.putMessage(msgs);
    service.submitConsumeRequest(msgs, held.pq, held.mq, dispatch);
  };
  return {
    host,
    service,
    calls,
    deliver,
    overlapped: () => overlapped,
    maxParallel: () => maxParallel,
    idle: () => [...inFlight.values()].every((n) => n === 0),
  };
}

const at = (o: number) => msgAt(o);

describe('ConsumeMessageOrderlyService', () => {
  test('never two listener calls of one queue at once; different queues in parallel', async () => {
    const gates = new Map<string, ReturnType<typeof deferred<string>>>();
    const gateOf = (q: number, o: number) => {
      const key = `${q}/${o}`;
      let g = gates.get(key);
      if (g === undefined) {
        g = deferred<string>();
        gates.set(key, g);
      }
      return g;
    };
    const { host, service, calls, deliver, overlapped, maxParallel, idle } = setup(
      (msgs, ctx) => gateOf(ctx.messageQueue.queueId, Number(msgs[0]?.queueOffset)).promise,
    );
    const a = host.hold(0);
    const b = host.hold(1);
    deliver(a, [at(0), at(1), at(2)]);
    deliver(b, [at(0), at(1)]);
    // A second request for queue 0 (as after a suspension): must wait for the first.
    service.submitConsumeRequest([], a.pq, a.mq, true);
    await until(() => calls.length === 2, 'one call per queue');
    assert.deepEqual(
      calls.map((c) => [c.queueId, c.offsets]),
      [
        [0, [0]],
        [1, [0]],
      ],
    );
    assert.equal(maxParallel(), 2);
    for (let round = 0; round < 6; round++) {
      for (const g of gates.values()) g.resolve('SUCCESS');
      await drain();
    }
    await until(() => calls.length === 5 && idle(), 'every message');
    assert.equal(overlapped(), false);
    assert.deepEqual(
      calls.filter((c) => c.queueId === 0).map((c) => c.offsets[0]),
      [0, 1, 2],
    );
    assert.deepEqual(
      calls.filter((c) => c.queueId === 1).map((c) => c.offsets[0]),
      [0, 1],
    );
  });

  test('SUCCESS commits the batch: offset after it, not increase-only, OK TPS', async () => {
    const { host, deliver, calls } = setup(() => 'SUCCESS', { consumeMessageBatchMaxSize: 2 });
    const q = host.hold(0);
    deliver(q, [at(0), at(1), at(2)]);
    await until(() => host.offsetStore.updates.length === 2, 'two batches');
    assert.deepEqual(
      calls.map((c) => c.offsets),
      [[0, 1], [2]],
    );
    assert.deepEqual(
      host.offsetStore.updates.map((u) => [u.offset, u.increaseOnly]),
      [
        [2n, false],
        [3n, false],
      ],
    );
    assert.equal(host.stats.sum('okTPS'), 3);
    assert.equal(q.pq.msgCount, 0);
    assert.equal(q.pq.consuming, false, 'the worker found nothing more and said so');
  });

  for (const [asked, waited] of [
    [-1, 1000],
    [0, 10],
    [5, 10],
    [250, 250],
    [40_000, 30_000],
  ] as const) {
    test(`SUSPEND with suspendCurrentQueueTimeMillis ${asked}: the batch again, in order, after ${waited} ms`, async () => {
      let suspends = 2;
      const { host, deliver, calls } = setup(
        (_m, ctx) => {
          if (suspends-- > 0) {
            ctx.suspendCurrentQueueTimeMillis = asked;
            return 'SUSPEND_CURRENT_QUEUE_A_MOMENT';
          }
          return 'SUCCESS';
        },
        // Long pauses would outlive the broker lock, which lockAll (not running here) renews.
        { consumeMessageBatchMaxSize: 2, lockMaxLiveTime: 600_000 },
      );
      const q = host.hold(0);
      deliver(q, [at(0), at(1), at(2)]);
      await until(() => calls.length === 1, 'first call');
      await drain();
      assert.deepEqual(offsets([...q.pq.msgTreeMap.valuesInOrder()]), [0, 1, 2], 'put back in front');
      assert.equal(q.pq.consumingMsgOrderlyTreeMap.size, 0);
      host.clock.advance(waited - 1);
      await drain();
      assert.equal(calls.length, 1);
      host.clock.advance(1);
      await until(() => calls.length === 2, 'second call');
      host.clock.advance(waited);
      await until(() => host.offsetStore.updates.length === 2, 'consumed');
      assert.deepEqual(
        calls.map((c) => [c.offsets, c.reconsumeTimes]),
        [
          [
            [0, 1],
            [0, 0],
          ],
          [
            [0, 1],
            [1, 1],
          ],
          [
            [0, 1],
            [2, 2],
          ],
          [[2], [0]],
        ],
      );
      assert.equal(host.stats.sum('failedTPS'), 4);
      assert.equal(host.offsetStore.updates.at(-1)?.offset, 3n);
    });
  }

  test('a throw or a non-status counts as SUSPEND_CURRENT_QUEUE_A_MOMENT', async () => {
    const answers: Answer[] = [
      () => {
        throw new Error('orderly bug');
      },
      () => 'WHATEVER',
      () => 'SUCCESS',
    ];
    let i = 0;
    const { hook, seen } = recordingHook();
    const { host, deliver, calls } = setup((m, c) => (answers[i++] as Answer)(m, c));
    host.hooks.push(hook);
    const q = host.hold(0);
    deliver(q, [at(0)]);
    await until(() => calls.length === 1, 'first');
    host.clock.advance(1000);
    await until(() => calls.length === 2, 'second');
    host.clock.advance(1000);
    await until(() => host.offsetStore.updates.length === 1, 'committed');
    assert.deepEqual(
      seen.filter((s) => s.phase === 'after').map((s) => [s.type, s.status, s.success]),
      [
        ['EXCEPTION', 'SUSPEND_CURRENT_QUEUE_A_MOMENT', false],
        ['RETURNNULL', 'SUSPEND_CURRENT_QUEUE_A_MOMENT', false],
        ['SUCCESS', 'SUCCESS', true],
      ],
    );
  });

  test('autoCommit false: SUCCESS holds the offset, COMMIT commits, ROLLBACK consumes again', async () => {
    const script: ConsumeOrderlyStatus[] = ['SUCCESS', 'COMMIT', 'SUCCESS', 'ROLLBACK', 'SUCCESS', 'COMMIT'];
    let i = 0;
    const { host, deliver, calls } = setup((_m, ctx) => {
      ctx.autoCommit = false;
      ctx.suspendCurrentQueueTimeMillis = 20;
      return script[i++];
    });
    const q = host.hold(0);
    deliver(q, [0, 1, 2, 3].map(at));
    await until(() => calls.length === 4, 'up to the ROLLBACK');
    await drain();
    assert.deepEqual(
      host.offsetStore.updates.map((u) => u.offset),
      [2n],
      'only COMMIT moved the offset, to after everything taken so far',
    );
    assert.deepEqual(offsets([...q.pq.msgTreeMap.valuesInOrder()]), [2, 3], 'rolled back in order');
    host.clock.advance(20);
    await until(() => host.offsetStore.updates.length === 2, 'the final COMMIT');
    assert.deepEqual(
      calls.map((c) => c.offsets[0]),
      [0, 1, 2, 3, 2, 3],
    );
    assert.equal(host.offsetStore.updates.at(-1)?.offset, 4n);
    assert.equal(host.stats.sum('okTPS'), 3, 'SUCCESS counts, COMMIT does not (as upstream)');
  });

  test('autoCommit true: COMMIT and ROLLBACK are taken as SUCCESS with a warn line', async () => {
    const script: ConsumeOrderlyStatus[] = ['COMMIT', 'ROLLBACK'];
    let i = 0;
    const { host, deliver } = setup(() => script[i++]);
    const q = host.hold(0);
    deliver(q, [at(0), at(1)]);
    await until(() => host.offsetStore.updates.length === 2, 'both');
    assert.deepEqual(
      host.offsetStore.updates.map((u) => u.offset),
      [1n, 2n],
    );
    assert.equal(host.log.lines('warn').filter((r) => r.msg.includes('illegal')).length, 2);
  });

  test('past maxReconsumeTimes the message goes to the DLQ via the inner producer and the queue moves on', async () => {
    const { host, deliver, calls } = setup(() => 'SUSPEND_CURRENT_QUEUE_A_MOMENT', { maxReconsumeTimes: 2 });
    const q = host.hold(0);
    const m = msgAt(0, { properties: { TRAN_MSG: 'true' } });
    m.flag = 9;
    deliver(q, [m, at(1)]);
    for (let n = 1; n <= 3; n++) {
      await until(() => calls.length >= n, `call ${n}`);
      await drain();
      host.clock.advance(1000);
    }
    await until(() => host.dlq.length === 1, 'sent to the DLQ');
    await until(() => host.offsetStore.updates.length === 1, 'committed');
    assert.deepEqual(
      calls.slice(0, 3).map((c) => c.reconsumeTimes[0]),
      [0, 1, 2],
    );
    const dlq = host.dlq[0];
    assert.equal(dlq?.topic, '%RETRY%cg');
    assert.equal(dlq?.body.toString(), 'm0');
    assert.equal(dlq?.flag, 9);
    assert.equal(dlq?.getProperty('RETRY_TOPIC'), 'T');
    assert.equal(dlq?.getProperty('RECONSUME_TIME'), '2');
    assert.equal(dlq?.getProperty('MAX_RECONSUME_TIMES'), '2');
    assert.equal(dlq?.getProperty('ORIGIN_MESSAGE_ID'), 'ID-T-0-0');
    assert.equal(dlq?.getProperty('TRAN_MSG'), undefined);
    assert.equal(dlq?.delayTimeLevel, 5, '3 + reconsumeTimes');
    assert.equal(host.offsetStore.updates[0]?.offset, 1n);
    assert.equal(calls[3]?.offsets[0], 1, 'the next message');
  });

  test('a DLQ send that fails keeps the message for another try', async () => {
    const { host, deliver, calls } = setup(() => 'SUSPEND_CURRENT_QUEUE_A_MOMENT', { maxReconsumeTimes: 0 });
    host.dlqFails = true;
    const q = host.hold(0);
    deliver(q, [at(0)]);
    await until(() => calls.length === 1, 'first');
    await until(() => host.log.lines('error').some((r) => r.msg.includes('DLQ')), 'the DLQ failure');
    await drain();
    assert.deepEqual(host.offsetStore.updates, []);
    host.dlqFails = false;
    host.clock.advance(1000);
    await until(() => calls.length === 2, 'again');
    assert.equal(calls[1]?.reconsumeTimes[0], 1);
    await until(() => host.dlq.length === 1 && host.offsetStore.updates.length === 1, 'dead-lettered');
    assert.equal(host.dlq[0]?.getProperty('RECONSUME_TIME'), '1');
  });

  test('a queue not locked (or whose lock expired) is locked again first, then consumed', async () => {
    const { host, deliver, calls, service } = setup(() => 'SUCCESS');
    const q = host.hold(0);
    q.pq.locked = false;
    host.broker.holders.clear();
    deliver(q, [at(0)]);
    await drain();
    assert.equal(calls.length, 0);
    host.clock.advance(100);
    await until(() => host.broker.calls.length === 1, 'LOCK_BATCH_MQ');
    assert.equal(host.broker.calls[0]?.code, RequestCode.LOCK_BATCH_MQ);
    await drain();
    assert.equal(q.pq.locked, true);
    host.clock.advance(9);
    await drain();
    assert.equal(calls.length, 0);
    host.clock.advance(1);
    await until(() => calls.length === 1, 'consumed after the lock');

    // Expired: held but not renewed for more than lockMaxLiveTime.
    host.clock.advance(30_001);
    deliver(q, [at(1)]);
    await drain();
    assert.equal(calls.length, 1);
    host.clock.advance(100);
    await until(() => host.broker.calls.length === 2, 'LOCK again');
    await drain();
    host.clock.advance(10);
    await until(() => calls.length === 2, 'consumed after renewing');
    await service.shutdown(0);
  });

  test('a lock the broker refuses: the request comes back after 3 s and tries again', async () => {
    const { host, deliver, calls } = setup(() => 'SUCCESS');
    const q = host.hold(0);
    q.pq.locked = false;
    host.broker.holders.clear();
    host.broker.others.add(q.mq.key);
    deliver(q, [at(0)]);
    await drain();
    host.clock.advance(100);
    await until(() => host.broker.calls.length === 1, 'first LOCK');
    await drain();
    host.broker.others.clear();
    host.clock.advance(2999);
    await drain();
    host.clock.advance(1);
    await drain();
    assert.equal(host.broker.calls.length, 1, 'the request comes back after 3 s and waits 100 ms to lock');
    host.clock.advance(100);
    await until(() => host.broker.calls.length === 2, 'second LOCK');
    await drain();
    host.clock.advance(10);
    await until(() => calls.length === 1, 'consumed');
  });

  test('a lock lost while consuming stops the worker and locks again 10 ms later', async () => {
    const { host, deliver, calls } = setup((_m, ctx) => {
      if (ctx.messageQueue.queueId === 0 && calls.length === 1) q.pq.locked = false; // lockAll said no
      return 'SUCCESS';
    });
    const q = host.hold(0);
    deliver(q, [at(0), at(1)]);
    await until(() => calls.length === 1 && host.offsetStore.updates.length === 1, 'first batch');
    await drain();
    assert.equal(calls.length, 1);
    host.clock.advance(10);
    await until(() => host.broker.calls.length === 1, 'LOCK');
    await drain();
    host.clock.advance(10);
    await until(() => calls.length === 2, 'second batch');
  });

  test('broadcasting needs no broker lock', async () => {
    const { host, deliver, calls } = setup(() => 'SUCCESS', { messageModel: 'BROADCASTING' });
    const q = host.hold(0);
    q.pq.locked = false;
    deliver(q, [at(0)]);
    await until(() => calls.length === 1, 'consumed');
    assert.deepEqual(host.broker.calls, []);
  });

  test('a worker yields its queue after maxTimeConsumeContinuously', async () => {
    const { host, deliver, calls } = setup(
      () => {
        host.clock.advance(60);
        return 'SUCCESS';
      },
      { maxTimeConsumeContinuously: 100 },
    );
    const q = host.hold(0);
    deliver(q, [0, 1, 2, 3, 4].map(at));
    await until(() => calls.length === 2, 'two batches');
    await drain();
    assert.equal(calls.length, 2, '120 ms > 100 ms: yielded');
    host.clock.advance(10);
    await until(() => calls.length === 4, 'the next turn');
    await drain();
    host.clock.advance(10);
    await until(() => calls.length === 5, 'the last');
    assert.deepEqual(
      calls.map((c) => c.offsets[0]),
      [0, 1, 2, 3, 4],
    );
  });

  test('a dropped queue is not consumed', async () => {
    const { host, deliver, calls } = setup(() => 'SUCCESS');
    const q = host.hold(0);
    q.pq.dropped = true;
    deliver(q, [at(0)]);
    await drain();
    assert.equal(calls.length, 0);
    assert.equal(host.clock.pending, 0);
  });

  test('renews the locks 1 s after start, then every lockInterval; shutdown unlocks every queue', async () => {
    const { host, service } = setup(() => 'SUCCESS', { lockInterval: 5000 });
    const a = host.hold(0);
    const b = host.hold(1);
    service.start();
    host.clock.advance(999);
    await drain();
    assert.equal(host.broker.calls.length, 0);
    host.clock.advance(1);
    await until(() => a.pq.lastLockTimestamp === host.clock.now(), 'first renewal');
    assert.equal(host.broker.calls.length, 1);
    assert.equal(host.broker.calls[0]?.code, RequestCode.LOCK_BATCH_MQ);
    host.clock.advance(5000);
    await until(() => host.broker.calls.length === 2, 'second renewal');
    await service.shutdown(0);
    const unlock = host.broker.calls.at(-1);
    assert.equal(unlock?.code, RequestCode.UNLOCK_BATCH_MQ);
    assert.equal(unlock?.oneway, false);
    assert.deepEqual(unlock?.mqs.sort(), [a.mq.key, b.mq.key].sort());
    assert.equal(a.pq.locked, false);
    assert.equal(b.pq.locked, false);
    assert.equal(host.broker.holders.size, 0);
    host.clock.advance(60_000);
    await drain();
    assert.equal(host.broker.calls.length, 3, 'no renewal after shutdown');
  });

  test('broadcasting: no lock renewal, nothing to unlock at shutdown', async () => {
    const { host, service } = setup(() => 'SUCCESS', { messageModel: 'BROADCASTING' });
    host.hold(0);
    service.start();
    host.clock.advance(60_000);
    await service.shutdown(0);
    assert.deepEqual(host.broker.calls, []);
  });

  test('shutdown waits for the batch in flight up to awaitTerminateMillis, then unlocks', async () => {
    const gate = deferred<string>();
    const { host, service, deliver, calls } = setup(() => gate.promise);
    const q = host.hold(0);
    deliver(q, [at(0), at(1)]);
    await until(() => calls.length === 1, 'in flight');
    let stopped = false;
    const stopping = service.shutdown(2000).then(() => {
      stopped = true;
    });
    await drain();
    assert.equal(stopped, false);
    gate.resolve('SUCCESS');
    await stopping;
    assert.equal(host.broker.calls.at(-1)?.code, RequestCode.UNLOCK_BATCH_MQ);
  });

  test('consumeMessageDirectly maps every answer and reports autoCommit', async () => {
    const answers: Answer[] = [
      () => 'SUCCESS',
      () => 'SUSPEND_CURRENT_QUEUE_A_MOMENT',
      (_m, c) => {
        c.autoCommit = false;
        return 'COMMIT';
      },
      () => 'ROLLBACK',
      (_m, c) => {
        c.autoCommit = false;
        throw new Error('direct orderly failure');
      },
      () => undefined,
    ];
    let i = 0;
    const { service, host } = setup((m, c) => (answers[i++] as Answer)(m, c));
    const results = [];
    for (let n = 0; n < answers.length; n++)
      results.push(await service.consumeMessageDirectly(at(n), 'broker-a'));
    assert.deepEqual(
      results.map((r) => [r.consumeResult, r.order, r.autoCommit]),
      [
        ['CR_SUCCESS', true, true],
        ['CR_LATER', true, true],
        ['CR_COMMIT', true, false],
        ['CR_ROLLBACK', true, true],
        ['CR_THROW_EXCEPTION', true, false],
        ['CR_RETURN_NULL', true, true],
      ],
    );
    assert.match(results[4]?.remark ?? '', /direct orderly failure/);
    assert.deepEqual(host.offsetStore.updates, []);
  });
});
