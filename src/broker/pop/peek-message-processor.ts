/**
 * PEEK_MESSAGE (200052), upstream PeekMessageProcessor: the messages a pop would get next -- from the
 * group's offset (or the queue's min), the group's POP retry topic read first one time in five else
 * after the topic when not full -- without checkpoint, offset commit, filter or long polling. SUCCESS
 * with the records as PULL's body and a PopMessageResponseHeader whose only meaningful field is
 * restNum (the rest stay 0, as upstream leaves them); PULL_NOT_FOUND when there are none.
 * Retried messages keep their retry topic (upstream does not re-topic them here).
 */
import { buildPopRetryTopic } from '../../common/pop/key-builder.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import { PeekMessageRequestHeader } from '../../remoting/protocol/headers/peek-message-request-header.js';
import { PopMessageResponseHeader } from '../../remoting/protocol/headers/pop-message-response-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { GetMessageStatus, joinRecords } from '../../store/message-store.js';
import type { BrokerContext, BrokerRequestHandler } from '../processor/broker-context.js';
import { checkPopTarget, isRefusal } from './pop-checks.js';
import { enableRetryTopicV2Of } from './pop-settings.js';

interface Peeked {
  messages: Buffer[];
  size: number;
}

async function peekMsgFromQueue(
  broker: BrokerContext,
  h: PeekMessageRequestHeader,
  topic: string,
  queueId: number,
  out: Peeked,
  restNum: bigint,
): Promise<bigint> {
  const store = broker.messageStore;
  let offset = broker.consumerOffsetManager.queryOffset(h.consumerGroup, topic, queueId);
  if (offset < 0n) offset = store.getMinOffsetInQueue(topic, queueId);
  restNum = store.getMaxOffsetInQueue(topic, queueId) - offset + restNum;
  if (out.messages.length >= h.maxMsgNums) return restNum;
  const want = h.maxMsgNums - out.messages.length;
  let result = await store.getMessage(h.consumerGroup, topic, queueId, offset, want);
  if (
    result.status === GetMessageStatus.OFFSET_TOO_SMALL ||
    result.status === GetMessageStatus.OFFSET_OVERFLOW_BADLY
  ) {
    offset = result.nextBeginOffset;
    result = await store.getMessage(h.consumerGroup, topic, queueId, offset, want);
  }
  for (const m of result.messages) {
    out.messages.push(m);
    out.size += m.length;
  }
  return restNum;
}

export const peekMessage: BrokerRequestHandler = async (broker, ctx, request) => {
  const h = decodeHeader(PeekMessageRequestHeader, request.extFields);
  const checked = checkPopTarget(broker, ctx, request, h);
  if (isRefusal(checked)) return checked;
  const randomQ = Math.floor(Math.random() * 100);
  const needRetry = randomQ % 5 === 0;
  const retryTopic = buildPopRetryTopic(h.topic, h.consumerGroup, enableRetryTopicV2Of(broker.config));
  const out: Peeked = { messages: [], size: 0 };
  let restNum = 0n;
  const peekRetry = async () => {
    const retry = broker.topicConfigManager.selectTopicConfig(retryTopic);
    if (retry === undefined) return;
    for (let i = 0; i < retry.readQueueNums; i++) {
      restNum = await peekMsgFromQueue(
        broker,
        h,
        retryTopic,
        (randomQ + i) % retry.readQueueNums,
        out,
        restNum,
      );
    }
  };
  if (needRetry) await peekRetry();
  if (h.queueId < 0) {
    for (let i = 0; i < checked.readQueueNums; i++) {
      restNum = await peekMsgFromQueue(
        broker,
        h,
        h.topic,
        (randomQ + i) % checked.readQueueNums,
        out,
        restNum,
      );
    }
  } else {
    restNum = await peekMsgFromQueue(broker, h, h.topic, h.queueId, out, restNum);
  }
  if (!needRetry && out.messages.length < h.maxMsgNums) await peekRetry();
  const found = out.messages.length > 0;
  if (found) {
    const stats = broker.brokerStatsManager;
    stats.incGroupGetNums(h.consumerGroup, h.topic, out.messages.length);
    stats.incGroupGetSize(h.consumerGroup, h.topic, out.size);
    stats.incBrokerGetNums(out.messages.length);
  }
  return createResponse(request, found ? ResponseCode.SUCCESS : ResponseCode.PULL_NOT_FOUND, {
    remark: found ? GetMessageStatus.FOUND : GetMessageStatus.NO_MESSAGE_IN_QUEUE,
    extFields: encodeHeader(PopMessageResponseHeader, {
      popTime: 0n,
      invisibleTime: 0n,
      reviveQid: 0,
      restNum,
    }),
    body: found ? joinRecords(out.messages, out.size) : undefined,
  });
};
