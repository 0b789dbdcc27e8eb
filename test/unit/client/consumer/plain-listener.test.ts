/**
 * A listener written as a plain (non-async) function: its status is used as an async one's, and a
 * synchronous throw counts as a thrown listener (RECONSUME_LATER and a send-back for concurrently,
 * SUSPEND_CURRENT_QUEUE_A_MOMENT and the batch again for orderly), as upstream counts an exception.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConsumeMessageConcurrentlyService } from '../../../../src/client/consumer/consume/consume-message-concurrently-service.js';
import { ConsumeMessageOrderlyService } from '../../../../src/client/consumer/consume/consume-message-orderly-service.js';
import type { ConsumeMessageService } from '../../../../src/client/consumer/consume/consume-message-service.js';
import type {
  MessageListenerConcurrently,
  MessageListenerOrderly,
} from '../../../../src/client/consumer/listener.js';
import { fakeConsumeHost } from './consume-host-fake.js';
import { msgAt, offsets, until } from './consumer-fakes.js';

test('concurrently: a plain listener answers, a plain throw sends the batch back', async () => {
  const host = fakeConsumeHost({ consumeMessageBatchMaxSize: 1 });
  const seen: number[][] = [];
  const listener: MessageListenerConcurrently = {
    type: 'concurrently',
    consumeMessage: (msgs) => {
      seen.push(offsets(msgs));
      if (msgs[0]?.queueOffset === 1n) throw new Error('plain listener failure');
      return 'CONSUME_SUCCESS';
    },
  };
  const service: ConsumeMessageService = new ConsumeMessageConcurrentlyService(host, listener);
  const { mq, pq } = host.hold(0);
  const msgs = [0, 1, 2].map((o) => msgAt(o));
  pq.putMessage(msgs);
  service.submitConsumeRequest(msgs, pq, mq, true);
  await until(() => host.offsetStore.updates.length === 3, 'three batches');
  assert.deepEqual(seen, [[0], [1], [2]]);
  assert.deepEqual(
    host.sentBack.map((s) => s.offset),
    [1],
  );
  assert.equal(host.stats.sum('okTPS'), 2);
  assert.equal(host.stats.sum('failedTPS'), 1);
  assert.equal(host.offsetStore.updates.at(-1)?.offset, 3n);
});

test('orderly: a plain listener answers, a plain throw suspends the queue and retries the batch', async () => {
  const host = fakeConsumeHost({ consumeMessageBatchMaxSize: 2, lockMaxLiveTime: 600_000 }, true);
  let calls = 0;
  const listener: MessageListenerOrderly = {
    type: 'orderly',
    consumeMessage(_msgs, ctx) {
      calls++;
      if (calls === 1) {
        ctx.suspendCurrentQueueTimeMillis = 10;
        throw new Error('plain orderly failure');
      }
      return 'SUCCESS';
    },
  };
  const service = new ConsumeMessageOrderlyService(host, listener);
  const held = host.hold(0);
  const msgs = [0, 1].map((o) => msgAt(o));
  const dispatch = held.pq.putMessage(msgs);
  service.submitConsumeRequest(msgs, held.pq, held.mq, dispatch);
  await until(() => calls === 1, 'first call');
  assert.equal(host.offsetStore.updates.length, 0, 'the failed batch is not committed');
  host.clock.advance(1000);
  await until(() => host.offsetStore.updates.length === 1, 'the batch again');
  assert.equal(calls, 2);
  assert.equal(host.offsetStore.updates[0]?.offset, 2n);
  assert.equal(host.stats.sum('failedTPS'), 2);
  assert.equal(host.stats.sum('okTPS'), 2);
});
