import { MessageQueue } from '../../common/message/message-queue.js';
import { encodeResetOffsetBody } from '../../common/protocol/reset-offset-body.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { ResetOffsetRequestHeaderV5 } from '../../remoting/protocol/headers/reset-offset-request-header-v5.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import {
  type Broker2ClientResult,
  pushResetOffset,
  resetConsumerClientOffsetRequest,
  resetOffset as resetOffsetThroughClients,
} from '../client/broker2client.js';
import { type BrokerContext, type BrokerRequestHandler, isSlave } from './broker-context.js';

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222, `mqadmin resetOffsetByTime`). Without a queueId (4.9.8 admins)
 * it is 4.9.8's Broker2Client.resetOffset: the offsets for the timestamp go to the group's online
 * consumers, which reset and commit them. With a queueId >= 0 (5.x admins) it is 5.x's server-side
 * reset of that one queue, to `offset` or to the timestamp's offset: committed here, and pushed to
 * the online consumers too, since a 4.9.8 consumer would otherwise commit its old offset over it.
 */
export const resetOffset: BrokerRequestHandler = (broker, ctx, request) => {
  const h = decodeHeader(ResetOffsetRequestHeaderV5, request.extFields);
  broker.logger.info('[reset-offset] reset offset started', {
    by: ctx.remoteAddress,
    topic: h.topic,
    group: h.group,
    timestamp: h.timestamp,
    isForce: h.isForce,
    queueId: h.queueId,
  });
  const isC = request.language === 'CPP';
  const r =
    h.queueId >= 0
      ? resetQueueOffset(broker, ctx.remoteAddress, h.topic, h.group, h.queueId, h.timestamp, h.offset, isC)
      : resetOffsetThroughClients(broker, h.topic, h.group, h.timestamp, h.isForce, isC);
  return createResponse(request, r.code, { remark: r.remark, body: r.body });
};

/** 5.x AdminBrokerProcessor.resetOffsetInner for one queue (`offset` undefined or -1: by timestamp). */
function resetQueueOffset(
  broker: BrokerContext,
  clientHost: string,
  topic: string,
  group: string,
  queueId: number,
  timestamp: bigint,
  requested: bigint | undefined,
  isC: boolean,
): Broker2ClientResult {
  if (isSlave(broker)) {
    return { code: ResponseCode.SYSTEM_ERROR, remark: 'Can not reset offset in slave broker' };
  }
  if (broker.topicConfigManager.selectTopicConfig(topic) === undefined) {
    broker.logger.warn('Reset offset failed, topic does not exist', { topic, group });
    return { code: ResponseCode.TOPIC_NOT_EXIST, remark: `Topic ${topic} does not exist` };
  }
  if (!broker.subscriptionGroupManager.subscriptionGroupTable.has(group)) {
    broker.logger.warn('Reset offset failed, group does not exist', { topic, group });
    return { code: ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, remark: `Group ${group} does not exist` };
  }
  const store = broker.messageStore;
  let offset: bigint;
  if (requested !== undefined && requested !== -1n) {
    const min = store.getMinOffsetInQueue(topic, queueId);
    const max = store.getMaxOffsetInQueue(topic, queueId);
    if ((min >= 0n && requested < min) || requested > max + 1n) {
      return {
        code: ResponseCode.SYSTEM_ERROR,
        remark: `Target offset ${requested} not in consume queue range [${min}-${max}]`,
      };
    }
    offset = requested;
  } else {
    offset =
      timestamp < 0n
        ? store.getMaxOffsetInQueue(topic, queueId)
        : store.getOffsetInQueueByTime(topic, queueId, timestamp);
  }
  const offsetTable = [[new MessageQueue(topic, broker.config.brokerName, queueId), offset] as const];
  // assignResetOffset ignores a negative offset (it only logs); nothing to commit or push then.
  if (offset >= 0n) {
    broker.consumerOffsetManager.commitOffset(clientHost, group, topic, queueId, offset);
    broker.logger.info('Reset offset', { topic, group, queueId, offset });
    const push = resetConsumerClientOffsetRequest(topic, group, timestamp, offsetTable, isC);
    pushResetOffset(broker, topic, group, push, false);
  } else {
    broker.logger.warn('Illegal arguments when assigning reset offset', { topic, group, queueId, offset });
  }
  return { code: ResponseCode.SUCCESS, body: encodeResetOffsetBody({ offsetTable }) };
}
