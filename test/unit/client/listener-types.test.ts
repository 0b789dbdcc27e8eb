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
  const lite = createLitePullConsumer({ namesrvAddr: '127.0.0.1:9876', consumerGroup: 'lp' });
  void (async () => {
    const batch = await lite.poll({ timeoutMs: 1000 });
    for await (const msg of lite) if (msg.body.length === batch.length) break;
  })();
}

test('listener literals match the status constants', () => {
  assert.equal(typeof typedAsUsersWriteThem, 'function');
  const listener: MessageListener = { type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' };
  assert.equal(listener.type, 'concurrently');
  assert.equal(ConsumeConcurrentlyStatus.CONSUME_SUCCESS, 'CONSUME_SUCCESS');
  assert.equal(ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT, 'SUSPEND_CURRENT_QUEUE_A_MOMENT');
});
