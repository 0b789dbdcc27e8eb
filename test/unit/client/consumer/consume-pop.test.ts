/**
 * The POP consume service's requests, as upstream's ConsumeMessagePopConcurrentlyService sends
 * them: a consumed message is acked with its handle's queue, offset and the topic it was popped
 * from (the POP retry topic for a retried one); RECONSUME_LATER changes the invisible time to
 * popDelayLevel[reconsumeTimes] (60 s for the third delivery); a batch whose invisible time passed is neither acked nor changed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConsumeMessagePopConcurrentlyService,
  type PopConsumeHost,
} from '../../../../src/client/consumer/consume/consume-message-pop-concurrently-service.js';
import { PopProcessQueue } from '../../../../src/client/consumer/pop/pop-process-queue.js';
import { DEFAULT_PUSH_CONSUMER_OPTIONS } from '../../../../src/client/consumer/push/push-consumer-options.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { createLogger } from '../../../../src/common/logger.js';
import { MessageExt } from '../../../../src/common/message/message.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { createResponse, type RemotingCommand } from '../../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';

const quiet = createLogger('test', { level: 'silent' });
const POP_TIME = 1_700_000_000_000;

function popped(body: string, offset: number, retry = false, reconsumeTimes = 0): MessageExt {
  const m = new MessageExt('T', Buffer.from(body));
  m.queueId = 1;
  m.queueOffset = BigInt(offset);
  m.reconsumeTimes = reconsumeTimes;
  m.properties.set('POP_CK', `100 ${POP_TIME} 60000 3 ${retry ? 1 : 0} broker-a 1 ${offset}`);
  return m;
}

function setup(answer: (body: string) => 'CONSUME_SUCCESS' | 'RECONSUME_LATER') {
  const clock = new ManualClock(POP_TIME + 1000);
  const sent: RemotingCommand[] = [];
  const noop = new Proxy({}, { get: () => () => undefined });
  const host = {
    consumerGroup: 'cg',
    options: {
      ...DEFAULT_PUSH_CONSUMER_OPTIONS,
      consumeConcurrency: 1,
      consumeMessageBatchMaxSize: 1,
      consumeTimeout: 15,
    },
    stats: noop,
    hooks: [],
    namespace: undefined,
    clock,
    logger: quiet,
    maxReconsumeTimes: () => 16,
    resetRetryAndNamespace: () => undefined,
    isRunning: () => true,
    popAckHost: {
      logger: quiet,
      api: {
        invoke: async (_addr: string, request: RemotingCommand) => {
          sent.push(request);
          return createResponse(request, 0, {
            extFields: { popTime: String(POP_TIME), invisibleTime: '10000', reviveQid: '3' },
          });
        },
      },
      findBrokerAddressInSubscribe: () => ({ brokerAddr: 'a:1', slave: false, brokerVersion: 0 }),
      updateTopicRouteInfoFromNameServer: async () => true,
    },
  } as unknown as PopConsumeHost;
  const service = new ConsumeMessagePopConcurrentlyService(host, {
    type: 'concurrently',
    consumeMessage: async (msgs) => answer((msgs[0] as MessageExt).body.toString()),
  });
  return { service, sent, clock };
}

test('ack on success, change invisible time on RECONSUME_LATER, the retry topic for a retried message', async () => {
  const { service, sent } = setup((body) => (body === 'bad' ? 'RECONSUME_LATER' : 'CONSUME_SUCCESS'));
  const pq = new PopProcessQueue(new ManualClock(0), 120_000);
  const msgs = [popped('good', 100), popped('bad', 101, false, 2), popped('again', 5, true)];
  pq.incFoundMsg(msgs.length);
  service.submitPopConsumeRequest(msgs, pq, new MessageQueue('T', 'broker-a', -1));
  for (let i = 0; i < 1000 && sent.length < 3; i++) await new Promise((r) => setImmediate(r));
  await service.shutdown();
  const byBody = sent.map((r) => [
    r.code,
    r.extFields?.topic,
    r.extFields?.offset,
    r.extFields?.invisibleTime,
  ]);
  assert.deepEqual(byBody.sort(), [
    [RequestCode.ACK_MESSAGE, '%RETRY%cg_T', '5', undefined],
    [RequestCode.ACK_MESSAGE, 'T', '100', undefined],
    [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, 'T', '101', '60000'],
  ]);
  for (const r of sent) {
    assert.equal(r.extFields?.consumerGroup, 'cg');
    assert.equal(r.extFields?.queueId, '1');
    assert.match(r.extFields?.extraInfo ?? '', / broker-a 1 /);
  }
  assert.equal(pq.waitAckMsgCount, 0);
});

test('a batch whose invisible time passed is given up without a request', async () => {
  const { service, sent, clock } = setup(() => 'CONSUME_SUCCESS');
  clock.advance(60_000);
  const pq = new PopProcessQueue(new ManualClock(0), 120_000);
  pq.incFoundMsg(1);
  service.submitPopConsumeRequest([popped('late', 100)], pq, new MessageQueue('T', 'broker-a', -1));
  await service.shutdown();
  assert.deepEqual(sent, []);
  assert.equal(pq.waitAckMsgCount, 0);
});
