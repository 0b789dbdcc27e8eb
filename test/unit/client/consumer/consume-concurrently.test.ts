/**
 * ConsumeMessageConcurrentlyService against upstream 4.9.8, on a fake ConsumeHost and a ManualClock:
 * batches of consumeMessageBatchMaxSize, bounded concurrency, ackIndex, failures (RECONSUME_LATER,
 * a throw, garbage) sent back, a failed send-back consumed again locally after 5 s with
 * reconsumeTimes + 1, broadcasting dropping failures, the min-offset commit rule, dropped queues,
 * stats, hooks, consumeMessageDirectly, and expired messages sent back with delay level 3.
 */
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { describe, test } from 'node:test';
import { ConsumeMessageConcurrentlyService } from '../../../../src/client/consumer/consume/consume-message-concurrently-service.js';
import type { ConsumeMessageService } from '../../../../src/client/consumer/consume/consume-message-service.js';
import type {
  ConsumeConcurrentlyContext,
  ConsumeConcurrentlyStatus,
  MessageListenerConcurrently,
} from '../../../../src/client/consumer/listener.js';
import type { PushConsumerOptions } from '../../../../src/client/consumer/push/push-consumer-options.js';
import { CHANNEL_NAMES, type ConsumeTraceContext } from '../../../../src/client/diagnostics.js';
import type { MessageExt } from '../../../../src/common/message/message.js';
import { type FakeConsumeHost, fakeConsumeHost, recordingHook } from './consume-host-fake.js';
import { deferred, drain, msgAt, offsets, until } from './consumer-fakes.js';

type Answer = (msgs: MessageExt[], ctx: ConsumeConcurrentlyContext) => unknown;

interface Call {
  offsets: number[];
  reconsumeTimes: number[];
  topic: string;
}

function setup(answer: Answer, overrides: Omit<Partial<PushConsumerOptions>, 'consumerGroup'> = {}) {
  const host = fakeConsumeHost(overrides);
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const listener: MessageListenerConcurrently = {
    type: 'concurrently',
    async consumeMessage(msgs, ctx) {
      calls.push({
        offsets: offsets(msgs),
        reconsumeTimes: msgs.map((m) => m.reconsumeTimes),
        topic: msgs[0]?.topic ?? '',
      });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        return (await answer(msgs, ctx)) as ConsumeConcurrentlyStatus;
      } finally {
        inFlight--;
      }
    },
  };
  const service: ConsumeMessageService = new ConsumeMessageConcurrentlyService(host, listener);
  const { mq, pq } = host.hold(0);
  /** As the pull path does: cache the messages, then submit them. */
  const deliver = (msgs: MessageExt[]) => {
    pq.putMessage(msgs);
    service.submitConsumeRequest(msgs, pq, mq, true);
  };
  return { host, service, calls, mq, pq, deliver, maxInFlight: () => maxInFlight, inFlight: () => inFlight };
}

const lastOffset = (host: FakeConsumeHost) => host.offsetStore.updates.at(-1)?.offset;

describe('ConsumeMessageConcurrentlyService', () => {
  test('splits a pull into batches of consumeMessageBatchMaxSize, submitted in order', async () => {
    const { calls, deliver, host } = setup(() => 'CONSUME_SUCCESS', { consumeMessageBatchMaxSize: 3 });
    deliver([0, 1, 2, 3, 4, 5, 6].map((o) => msgAt(o)));
    await until(() => host.offsetStore.updates.length === 3, 'three batches');
    assert.deepEqual(
      calls.map((c) => c.offsets),
      [[0, 1, 2], [3, 4, 5], [6]],
    );
    assert.equal(lastOffset(host), 7n);
    assert.ok(host.offsetStore.updates.every((u) => u.increaseOnly));
  });

  test('at most consumeConcurrency listener calls at once', async () => {
    const gates = [0, 1, 2, 3, 4].map(() => deferred<string>());
    const { calls, deliver, maxInFlight, inFlight, host } = setup(
      (msgs) => gates[Number(msgs[0]?.queueOffset)]?.promise,
      {
        consumeConcurrency: 2,
      },
    );
    deliver([0, 1, 2, 3, 4].map((o) => msgAt(o)));
    await until(() => calls.length === 2, 'two calls');
    await drain();
    assert.equal(calls.length, 2);
    gates[0]?.resolve('CONSUME_SUCCESS');
    await until(() => calls.length === 3, 'the third');
    for (const g of gates) g.resolve('CONSUME_SUCCESS');
    await until(() => inFlight() === 0 && lastOffset(host) === 5n, 'all');
    assert.equal(maxInFlight(), 2);
    assert.deepEqual(
      calls.map((c) => c.offsets[0]),
      [0, 1, 2, 3, 4],
    );
  });

  test('progress is the smallest offset not yet consumed (a slow message holds it back)', async () => {
    const slow = deferred<string>();
    const { deliver, host } = setup((msgs) =>
      msgs[0]?.queueOffset === 0n ? slow.promise : 'CONSUME_SUCCESS',
    );
    deliver([0, 1, 2].map((o) => msgAt(o)));
    await until(() => host.offsetStore.updates.length === 2, 'offsets 1 and 2 done');
    assert.deepEqual(
      host.offsetStore.updates.map((u) => u.offset),
      [0n, 0n],
    );
    slow.resolve('CONSUME_SUCCESS');
    await until(() => host.offsetStore.updates.length === 3, 'offset 0 done');
    assert.equal(lastOffset(host), 3n);
  });

  test('ackIndex: CONSUME_SUCCESS acks up to it and sends the rest back; beyond the batch acks all', async () => {
    const { deliver, host, pq } = setup(
      (msgs, ctx) => {
        if (msgs[0]?.queueOffset === 0n) ctx.ackIndex = 1;
        else ctx.ackIndex = 99;
        ctx.delayLevelWhenNextConsume = 5;
        return 'CONSUME_SUCCESS';
      },
      { consumeMessageBatchMaxSize: 4 },
    );
    deliver([0, 1, 2, 3, 4, 5, 6, 7].map((o) => msgAt(o)));
    await until(() => host.offsetStore.updates.length === 2, 'both batches');
    assert.deepEqual(
      host.sentBack.map((s) => [s.offset, s.delayLevel, s.brokerName]),
      [
        [2, 5, 'broker-a'],
        [3, 5, 'broker-a'],
      ],
    );
    assert.equal(host.stats.sum('okTPS'), 6);
    assert.equal(host.stats.sum('failedTPS'), 2);
    assert.equal(pq.msgCount, 0, 'sent back messages are done here');
    assert.equal(lastOffset(host), 8n);
  });

  test('RECONSUME_LATER fails the whole batch whatever ackIndex says', async () => {
    const { deliver, host } = setup(
      (_m, ctx) => {
        ctx.ackIndex = 2;
        return 'RECONSUME_LATER';
      },
      { consumeMessageBatchMaxSize: 3 },
    );
    deliver([0, 1, 2].map((o) => msgAt(o)));
    await until(() => host.offsetStore.updates.length === 1, 'the batch');
    assert.deepEqual(
      host.sentBack.map((s) => [s.offset, s.delayLevel]),
      [
        [0, 0],
        [1, 0],
        [2, 0],
      ],
    );
    assert.equal(host.stats.sum('failedTPS'), 3);
    assert.equal(host.stats.sum('okTPS'), 0);
    assert.equal(lastOffset(host), 3n);
  });

  test('a throw, a rejection, undefined or garbage count as RECONSUME_LATER (hooks see why)', async () => {
    const answers: Answer[] = [
      () => {
        throw new Error('listener bug');
      },
      async () => Promise.reject(new Error('async bug')),
      () => undefined,
      () => 'OK',
      () => 'CONSUME_SUCCESS',
    ];
    const { hook, seen } = recordingHook();
    const { deliver, host, calls } = setup((msgs, ctx) =>
      (answers[Number(msgs[0]?.queueOffset)] as Answer)(msgs, ctx),
    );
    host.hooks.push(hook);
    deliver([0, 1, 2, 3, 4].map((o) => msgAt(o)));
    await until(() => host.offsetStore.updates.length === 5, 'all five');
    assert.equal(calls.length, 5);
    assert.deepEqual(host.sentBack.map((s) => s.offset).sort(), [0, 1, 2, 3]);
    const after = seen
      .filter((s) => s.phase === 'after')
      .sort((x, y) => (x.offsets[0] ?? 0) - (y.offsets[0] ?? 0));
    assert.deepEqual(
      after.map((s) => [s.offsets[0], s.type, s.status, s.success]),
      [
        [0, 'EXCEPTION', 'RECONSUME_LATER', false],
        [1, 'EXCEPTION', 'RECONSUME_LATER', false],
        [2, 'RETURNNULL', 'RECONSUME_LATER', false],
        [3, 'RETURNNULL', 'RECONSUME_LATER', false],
        [4, 'SUCCESS', 'CONSUME_SUCCESS', true],
      ],
    );
    assert.ok(host.log.lines('warn').some((r) => String(r.fields.error).includes('listener bug')));
    // undefined and 'OK' both lack a status: one warn that says what it means, the second at debug.
    const noStatus = host.log.lines('warn').filter((r) => r.msg.includes('neither CONSUME_SUCCESS'));
    assert.equal(noStatus.length, 1);
    assert.match(noStatus[0]?.msg ?? '', /treated as RECONSUME_LATER, so these messages are delivered again/);
    assert.equal(lastOffset(host), 5n);
  });

  test('a failed send-back is consumed again here after 5 s with reconsumeTimes + 1', async () => {
    let fail = true;
    const { deliver, host, calls, pq } = setup(() => (fail ? 'RECONSUME_LATER' : 'CONSUME_SUCCESS'), {
      consumeMessageBatchMaxSize: 2,
    });
    host.sendBackFails.add(1);
    deliver([msgAt(0), msgAt(1, { reconsumeTimes: 2 })]);
    await until(() => host.offsetStore.updates.length === 1, 'the batch');
    assert.deepEqual(
      host.sentBack.map((s) => s.offset),
      [0],
    );
    assert.equal(lastOffset(host), 1n, 'offset 1 stays: it is consumed again here');
    assert.deepEqual(offsets([...pq.msgTreeMap.valuesInOrder()]), [1]);
    fail = false;
    host.clock.advance(4999);
    await drain();
    assert.equal(calls.length, 1);
    host.clock.advance(1);
    await until(() => host.offsetStore.updates.length === 2, 'the local retry');
    assert.deepEqual(calls[1], { offsets: [1], reconsumeTimes: [3], topic: 'T' });
    assert.equal(lastOffset(host), 2n);
    assert.equal(pq.msgCount, 0);
  });

  test('broadcasting drops failures with a warn line and moves on', async () => {
    const { deliver, host } = setup(() => 'RECONSUME_LATER', { messageModel: 'BROADCASTING' });
    deliver([msgAt(0), msgAt(1)]);
    await until(() => host.offsetStore.updates.length === 2, 'both');
    assert.deepEqual(host.sentBack, []);
    assert.equal(host.log.lines('warn').filter((r) => r.msg.includes('BROADCASTING')).length, 2);
    assert.equal(lastOffset(host), 2n);
    assert.equal(host.clock.pending, 0, 'no local retry scheduled');
  });

  test('a dropped queue: not consumed at all, or its result not applied', async () => {
    const gate = deferred<string>();
    const { deliver, host, calls, pq } = setup(() => gate.promise);
    pq.dropped = true;
    deliver([msgAt(0)]);
    await drain();
    assert.equal(calls.length, 0);
    pq.dropped = false;
    deliver([msgAt(1)]);
    await until(() => calls.length === 1, 'the listener');
    pq.dropped = true; // a rebalance moved the queue meanwhile
    gate.resolve('RECONSUME_LATER');
    await until(() => host.stats.calls.some((c) => c[0] === 'consumeRT'), 'the call to end');
    await drain();
    assert.deepEqual(host.sentBack, []);
    assert.deepEqual(host.offsetStore.updates, []);
    assert.equal(pq.msgTreeMap.size, 2);
  });

  test('consume RT and TPS are recorded per group and queue topic; the listener sees the real topic of a retry', async () => {
    const gate = deferred<string>();
    const { deliver, host, calls } = setup(() => gate.promise);
    const retried = msgAt(0, { topic: '%RETRY%cg', properties: { RETRY_TOPIC: 'Orders' } });
    deliver([retried]);
    await until(() => calls.length === 1, 'the listener');
    assert.equal(calls[0]?.topic, 'Orders', 'the listener sees the real topic');
    host.clock.advance(25);
    gate.resolve('CONSUME_SUCCESS');
    await until(() => host.offsetStore.updates.length === 1, 'done');
    assert.deepEqual(host.stats.calls, [
      ['consumeRT', 'cg', 'T', 25],
      ['okTPS', 'cg', 'T', 1],
      ['failedTPS', 'cg', 'T', 0],
    ]);
  });

  test('hooks run before and after; a throwing hook does not fail the consumption', async () => {
    const good = recordingHook();
    const bad = recordingHook(true);
    const { deliver, host } = setup(() => 'CONSUME_SUCCESS', { consumeMessageBatchMaxSize: 2 });
    host.hooks.push(bad.hook, good.hook);
    deliver([msgAt(0), msgAt(1)]);
    await until(() => host.offsetStore.updates.length === 1, 'done');
    assert.deepEqual(good.seen, [
      { phase: 'before', offsets: [0, 1] },
      { phase: 'after', offsets: [0, 1], status: 'CONSUME_SUCCESS', success: true, type: 'SUCCESS' },
    ]);
    assert.equal(bad.seen.length, 2);
    assert.equal(host.sentBack.length, 0);
    assert.equal(host.log.lines('warn').filter((r) => r.fields.hook === 'throwing').length, 2);
    assert.equal(lastOffset(host), 2n);
  });

  test('a listener slower than consumeTimeout is reported as TIME_OUT to hooks, whatever it answered', async () => {
    for (const status of ['CONSUME_SUCCESS', 'RECONSUME_LATER']) {
      const gate = deferred<string>();
      const { hook, seen } = recordingHook();
      const { deliver, host, calls } = setup(() => gate.promise, { consumeTimeout: 1 });
      host.hooks.push(hook);
      deliver([msgAt(0)]);
      await until(() => calls.length === 1, 'the listener');
      host.clock.advance(60_000);
      gate.resolve(status);
      await until(() => seen.length === 2, 'after hook');
      assert.equal(seen[1]?.type, 'TIME_OUT', status);
      assert.equal(seen[1]?.status, status);
    }
  });

  test('consumeMessageDirectly: CR_SUCCESS, CR_LATER, CR_THROW_EXCEPTION, CR_RETURN_NULL', async () => {
    const answers: Answer[] = [
      () => 'CONSUME_SUCCESS',
      () => 'RECONSUME_LATER',
      () => {
        throw new Error('direct failure');
      },
      () => undefined,
    ];
    let i = 0;
    const { service, host, calls } = setup(async (msgs, ctx) => {
      host.clock.advance(7);
      return (answers[i++] as Answer)(msgs, ctx);
    });
    const results = [];
    for (let n = 0; n < answers.length; n++) {
      results.push(
        await service.consumeMessageDirectly(
          msgAt(n, { topic: '%RETRY%cg', properties: { RETRY_TOPIC: 'Orders' } }),
          'broker-z',
        ),
      );
    }
    assert.deepEqual(
      results.map((r) => [r.consumeResult, r.order, r.autoCommit, r.spentTimeMills]),
      [
        ['CR_SUCCESS', false, true, 7n],
        ['CR_LATER', false, true, 7n],
        ['CR_THROW_EXCEPTION', false, true, 7n],
        ['CR_RETURN_NULL', false, true, 7n],
      ],
    );
    assert.match(results[2]?.remark ?? '', /direct failure/);
    assert.ok(calls.every((c) => c.topic === 'Orders'));
    assert.deepEqual(host.sentBack, [], 'nothing is sent back or committed');
    assert.deepEqual(host.offsetStore.updates, []);
  });

  test('messages consuming for longer than consumeTimeout are sent back with delay level 3 and dropped', async () => {
    const { service, host, pq } = setup(() => 'CONSUME_SUCCESS', { consumeTimeout: 1 });
    service.start();
    const started = String(host.clock.now() - 1);
    pq.putMessage([
      msgAt(0, { properties: { CONSUME_START_TIME: started } }),
      msgAt(1, { properties: { CONSUME_START_TIME: started } }),
      msgAt(2, { properties: { CONSUME_START_TIME: String(host.clock.now() + 30_000) } }),
    ]);
    host.clock.advance(59_999);
    await drain();
    assert.equal(host.sentBack.length, 0);
    host.clock.advance(1);
    await until(() => host.sentBack.length === 2, 'two sent back');
    assert.deepEqual(
      host.sentBack.map((s) => [s.offset, s.delayLevel, s.brokerName]),
      [
        [0, 3, 'broker-a'],
        [1, 3, 'broker-a'],
      ],
    );
    await until(() => pq.msgCount === 1, 'removed from the cache');
    assert.deepEqual(host.offsetStore.updates, [], 'the clean-up does not commit');
    // The clean-up runs every consumeTimeout.
    host.clock.advance(60_000);
    await until(() => host.sentBack.length === 3, 'offset 2 expired on the next run');
    await service.shutdown(0);
    assert.equal(host.clock.pending, 0, 'shutdown cancels the clean-up timer');
  });

  test('an expired message whose send-back fails stays, and the ones behind it are not sent back', async () => {
    const { service, host, pq } = setup(() => 'CONSUME_SUCCESS', { consumeTimeout: 1 });
    service.start();
    const started = String(host.clock.now() - 1);
    pq.putMessage([0, 1].map((o) => msgAt(o, { properties: { CONSUME_START_TIME: started } })));
    host.sendBackFails.add(0);
    host.clock.advance(60_000);
    await until(() => host.log.lines('error').length === 1, 'the failure');
    await drain();
    assert.equal(host.sentBack.length, 0, 'offset 1 is not sent back while offset 0 stays');
    assert.equal(pq.msgCount, 2);
    host.sendBackFails.clear();
    host.clock.advance(60_000);
    await until(() => pq.msgCount === 0, 'both sent back on the next run');
    assert.deepEqual(
      host.sentBack.map((s) => s.offset),
      [0, 1],
    );
    await service.shutdown(0);
  });

  test('shutdown drops queued requests, waits up to awaitTerminateMillis, and stops local retries', async () => {
    const gate = deferred<string>();
    const { service, deliver, host, calls } = setup(() => gate.promise, { consumeConcurrency: 1 });
    host.sendBackFails.add(0);
    deliver([msgAt(0), msgAt(1)]);
    await until(() => calls.length === 1, 'first');
    let stopped = false;
    const stopping = service.shutdown(1000).then(() => {
      stopped = true;
    });
    await drain();
    assert.equal(stopped, false);
    gate.resolve('RECONSUME_LATER');
    await stopping;
    assert.equal(calls.length, 1, 'the queued request was dropped');
    host.clock.advance(10_000);
    await drain();
    assert.equal(calls.length, 1, 'no local retry after shutdown');
    assert.equal(host.clock.pending, 0);
  });

  test('shutdown with a listener that hangs returns after awaitTerminateMillis', async () => {
    const { service, deliver, calls, host } = setup(() => new Promise(() => {}));
    deliver([msgAt(0)]);
    await until(() => calls.length === 1, 'the listener');
    let stopped = false;
    const stopping = service.shutdown(500).then(() => {
      stopped = true;
    });
    await drain();
    host.clock.advance(499);
    await drain();
    assert.equal(stopped, false);
    host.clock.advance(1);
    await stopping;
  });

  test('each listener call is traced with its answer; a throw ends the trace in error', async (t) => {
    const ends: ConsumeTraceContext[] = [];
    const errors: ConsumeTraceContext[] = [];
    const handlers = {
      start: () => {},
      end: () => {},
      asyncStart: () => {},
      asyncEnd: (ctx: unknown) => void ends.push(ctx as ConsumeTraceContext),
      error: (ctx: unknown) => void errors.push(ctx as ConsumeTraceContext),
    };
    const channel = tracingChannel(CHANNEL_NAMES.consume);
    channel.subscribe(handlers);
    t.after(() => channel.unsubscribe(handlers));
    const { deliver, host, mq } = setup((msgs) => {
      if (msgs[0]?.queueOffset === 1n) throw new Error('listener failed');
      return 'CONSUME_SUCCESS';
    });
    deliver([msgAt(0), msgAt(1)]);
    await until(() => ends.length === 2, 'two traces ended');
    const byOffset = (o: bigint) => ends.find((c) => c.msgs[0]?.queueOffset === o);
    assert.equal(byOffset(0n)?.status, 'CONSUME_SUCCESS');
    assert.equal(byOffset(1n)?.status, 'RECONSUME_LATER', 'a throw counts as RECONSUME_LATER');
    assert.deepEqual(
      errors.map((c) => [String(c.error), c.msgs[0]?.queueOffset]),
      [['Error: listener failed', 1n]],
    );
    assert.ok(
      ends.every((c) => c.consumerGroup === host.consumerGroup && c.messageQueue === mq && !c.orderly),
    );
  });

  test('updateCorePoolSize changes how many listener calls run at once', () => {
    const { service } = setup(() => 'CONSUME_SUCCESS', { consumeConcurrency: 3 });
    assert.equal(service.getCorePoolSize(), 3);
    service.updateCorePoolSize(7);
    assert.equal(service.getCorePoolSize(), 7);
  });
});
