/**
 * The header checks ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME share (upstream AckMessageProcessor
 * and ChangeInvisibleTimeProcessor repeat them): the topic exists (TOPIC_NOT_EXIST) and the queue id
 * is within readQueueNums (MESSAGE_ILLEGAL). Each caller then judges the offset against the queue's
 * range in its own way, so the range is handed back.
 */
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { FAQ_TIP } from '../processor/send-message-support.js';

export interface AckQueueRange {
  readonly minOffset: bigint;
  readonly maxOffset: bigint;
}

/** The queue's offset range when the request may go on, else the refusal. */
export function checkAckTarget(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  h: { topic: string; queueId: number },
): AckQueueRange | RemotingCommand {
  const topicConfig = broker.topicConfigManager.selectTopicConfig(h.topic);
  if (topicConfig === undefined) {
    broker.logger.warn('The topic not exist', { topic: h.topic, consumer: ctx.remoteAddress });
    return createResponse(request, ResponseCode.TOPIC_NOT_EXIST, {
      remark: `topic[${h.topic}] not exist, apply first please! ${FAQ_TIP}`,
    });
  }
  if (h.queueId >= topicConfig.readQueueNums || h.queueId < 0) {
    const errorInfo = `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[/${ctx.remoteAddress}]`;
    broker.logger.warn(errorInfo);
    return createResponse(request, ResponseCode.MESSAGE_ILLEGAL, { remark: errorInfo });
  }
  return {
    minOffset: broker.messageStore.getMinOffsetInQueue(h.topic, h.queueId),
    maxOffset: broker.messageStore.getMaxOffsetInQueue(h.topic, h.queueId),
  };
}

export function isAckRefusal(v: AckQueueRange | RemotingCommand): v is RemotingCommand {
  return !('minOffset' in v);
}
