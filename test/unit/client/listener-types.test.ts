/**
 * The listener shapes the docs and the issue show must type-check under `strict` as users write them:
 * this file is compiled with the suite, so a listener type that refuses them fails the build. The
 * run-time part checks that the literals are the ones the consume services compare against.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConsumeConcurrentlyStatus,
  ConsumeOrderlyStatus,
  createLitePullConsumer,
  createPushConsumer,
  type MessageListener,
  type MessageListenerConcurrently,
  type MessageListenerOrderly,
} from '../../../src/client/index.js';

function typedAsUsersWriteThem(): void {
  const consumer = createPushConsumer({ namesrvAddr: '127.0.0.1:9876', consumerGroup: 'cg' });
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs, ctx) {
      if (msgs.length > 1) ctx.ackIndex = 0;
      return msgs[0]?.reconsumeTimes === 0 ? 'RECONSUME_LATER' : 'CONSUME_SUCCESS';
    },
  });
  consumer.registerMessageListener({
    type: 'orderly',
    async consumeMessage(_msgs, ctx) {
      ctx.suspendCurrentQueueTimeMillis = 100;
      return 'SUSPEND_CURRENT_QUEUE_A_MOMENT';
    },
  });
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' });
  // Plain (non-async) functions, as methods and as arrows, checked strictly.
  consumer.registerMessageListener({
    type: 'concurrently',
    consumeMessage(msgs) {
      return msgs.length > 0 ? 'CONSUME_SUCCESS' : 'RECONSUME_LATER';
    },
  });
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: () => 'CONSUME_SUCCESS' });
  consumer.registerMessageListener({
    type: 'orderly',
    consumeMessage: (_msgs, ctx) => {
      ctx.autoCommit = true;
      return 'SUCCESS';
    },
  });
  consumer.registerMessageListener({
    type: 'orderly',
    consumeMessage() {
      return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
    },
  });
  // A plain function's wrong literal is refused (an async one's cannot be: see ListenerAnswer).
  // @ts-expect-error 'SUCCESS' is an orderly status, not a concurrent one
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: () => 'SUCCESS' });
  consumer.registerMessageListener({
    type: 'orderly',
    // @ts-expect-error a typo is no status
    consumeMessage() {
      return 'SUCESS';
    },
  });
  // @ts-expect-error a number is no status, async or not
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 0 });
  // @ts-expect-error nothing returned is no status
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: () => undefined });
  const sync: MessageListenerConcurrently['consumeMessage'] = () => 'RECONSUME_LATER';
  const async_: MessageListenerOrderly['consumeMessage'] = async () => 'SUCCESS';
  void [sync, async_];
  const lite = createLitePullConsumer({ namesrvAddr: '127.0.0.1:9876', consumerGroup: 'lp' });
  void (async () => {
    const batch = await lite.poll({ timeoutMs: 1000 });
    for await (const msg of lite) if (msg.body.length === batch.length) break;
  })();
  // Queue listeners return nothing; a plain or an async function fits.
  lite.registerTopicMessageQueueChangeListener('T', (topic, mqs) => void [topic, mqs]);
  lite.registerTopicMessageQueueChangeListener('T', async (topic) => {
    await Promise.resolve(topic);
  });
}

test('listener literals match the status constants', () => {
  assert.equal(typeof typedAsUsersWriteThem, 'function');
  const listener: MessageListener = { type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' };
  assert.equal(listener.type, 'concurrently');
  assert.equal(ConsumeConcurrentlyStatus.CONSUME_SUCCESS, 'CONSUME_SUCCESS');
  assert.equal(ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT, 'SUSPEND_CURRENT_QUEUE_A_MOMENT');
});
