/**
 * CONSUMER_SEND_MSG_BACK (36), upstream SendMessageProcessor.asyncConsumerSendMsgBack (4.9.8): a
 * consumer of a clustering group failed a message and hands it back by its commit-log offset. The
 * broker re-reads the stored message and writes a copy with one more reconsume to `%RETRY%<group>`
 * through the delay level (3 + reconsume count unless the consumer chose one), so the
 * ScheduleMessageService delivers it when due; once the count reaches the group's retryMaxTimes (or
 * the consumer's maxReconsumeTimes), or the consumer asks with a negative level, to `%DLQ%<group>`.
 */
import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { javaIsBlank } from '../../common/message/java-lang.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { TopicValidator } from '../../common/validators.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { ConsumerSendMsgBackRequestHeader } from '../../remoting/protocol/headers/consumer-send-msg-back-request-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { DelayLevelTable } from '../../store/delay-level.js';
import { type PutMessageResult, PutMessageStatus } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';
import { deadLetterQueue, maxReconsumeTimesOf } from './retry-dlq.js';
import { FAQ_TIP, randomQueueId } from './send-message-support.js';

function respond(request: RemotingCommand, code: number, remark?: string): RemotingCommand {
  return createResponse(request, code, { remark });
}

/**
 * The stored message as upstream's lookMessageByOffset decodes it (body as stored), or undefined.
 * Unlike upstream, the record must say it was stored at that offset: an offset inside a record can
 * land on bytes that frame and decode as a message (a body may hold a record image), and those must
 * not be sent back as one.
 */
function lookMessageByOffset(broker: BrokerContext, offset: bigint): MessageExt | undefined {
  const record = broker.messageStore.selectOneMessageByOffset(offset);
  if (record === undefined) return undefined;
  try {
    const msgExt = decodeMessage(record, 0, { decompress: false });
    return msgExt.commitLogOffset === offset ? msgExt : undefined;
  } catch {
    return undefined;
  }
}

let levelsText: string | undefined;
let levelsTable: DelayLevelTable | undefined;

/** The store clamps a delay level to the highest configured one. */
function maxDelayLevel(broker: BrokerContext): number {
  const service = broker.scheduleMessageService;
  if (service !== undefined) return service.maxDelayLevel;
  const text = broker.config.messageDelayLevel;
  if (levelsTable === undefined || levelsText !== text) {
    levelsTable = new DelayLevelTable(text);
    levelsText = text;
  }
  return levelsTable.maxDelayLevel;
}

export const consumerSendMsgBack: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(ConsumerSendMsgBackRequestHeader, request.extFields);
  const groupConfig = broker.subscriptionGroupManager.findSubscriptionGroupConfig(h.group);
  if (groupConfig === undefined) {
    return respond(
      request,
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group not exist, ${h.group} ${FAQ_TIP}`,
    );
  }
  if (!PermName.isWriteable(broker.config.brokerPermission)) {
    return respond(
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${broker.config.brokerIP1}] sending message is forbidden`,
    );
  }
  // A group without retry queues drops its failed messages.
  if (groupConfig.retryQueueNums <= 0) return respond(request, ResponseCode.SUCCESS);

  let topic = MixAll.getRetryTopic(h.group);
  let queueId = randomQueueId(groupConfig.retryQueueNums);
  const msgExt = lookMessageByOffset(broker, h.offset);
  const notFound = `look message by offset failed, ${h.offset}`;
  // Upstream creates the retry topic first; the answer is the same, but a request naming no message
  // leaves no new topic behind.
  if (msgExt === undefined && broker.topicConfigManager.selectTopicConfig(topic) === undefined) {
    return respond(request, ResponseCode.SYSTEM_ERROR, notFound);
  }
  const topicSysFlag = h.unitMode ? TopicSysFlag.buildSysFlag(false, true) : 0;
  let retryConfig: Readonly<TopicConfig>;
  try {
    retryConfig = broker.topicConfigManager.createTopicInSendMessageBackMethod(
      topic,
      groupConfig.retryQueueNums,
      PermName.PERM_WRITE | PermName.PERM_READ,
      topicSysFlag,
    );
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // A group name of 121..255 characters is valid, its retry topic is not.
    return respond(
      request,
      ResponseCode.SYSTEM_ERROR,
      `no retry topic for group ${h.group}: ${error.message}`,
    );
  }
  if (!PermName.isWriteable(retryConfig.perm)) {
    return respond(request, ResponseCode.NO_PERMISSION, `the topic[${topic}] sending message is forbidden`);
  }
  if (msgExt === undefined) return respond(request, ResponseCode.SYSTEM_ERROR, notFound);

  const properties = msgExt.properties;
  if (!properties.has(MessageConst.PROPERTY_RETRY_TOPIC)) {
    properties.set(MessageConst.PROPERTY_RETRY_TOPIC, msgExt.topic);
  }
  properties.set(MessageConst.PROPERTY_WAIT_STORE_MSG_OK, 'false');
  let delayLevel = h.delayLevel;
  let scheduledLevel = 0;
  const maxReconsumeTimes = maxReconsumeTimesOf(request, groupConfig, h.maxReconsumeTimes);
  if (msgExt.reconsumeTimes >= maxReconsumeTimes || delayLevel < 0) {
    const dlq = deadLetterQueue(broker, h.group);
    topic = dlq.topic;
    queueId = dlq.queueId;
    properties.set(MessageConst.PROPERTY_DELAY_TIME_LEVEL, '0');
  } else {
    // Java int arithmetic.
    if (delayLevel === 0) delayLevel = (3 + msgExt.reconsumeTimes) | 0;
    properties.set(MessageConst.PROPERTY_DELAY_TIME_LEVEL, String(delayLevel));
    if (delayLevel > 0) scheduledLevel = Math.min(delayLevel, maxDelayLevel(broker));
  }
  const originMsgId = properties.get(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID);
  properties.set(
    MessageConst.PROPERTY_ORIGIN_MESSAGE_ID,
    originMsgId === undefined || javaIsBlank(originMsgId) ? msgExt.offsetMsgId : originMsgId,
  );

  // Upstream copies the stored message's hosts, born time, flags and (possibly compressed) body.
  const inner: MessageExtBrokerInner = {
    topic,
    queueId,
    flag: msgExt.flag,
    body: msgExt.body,
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(msgExt.tags),
    sysFlag: msgExt.sysFlag,
    bornTimestamp: msgExt.bornTimestamp,
    bornHost: msgExt.bornHost,
    storeHost: msgExt.storeHost,
    reconsumeTimes: (msgExt.reconsumeTimes + 1) | 0,
    preparedTransactionOffset: 0n,
    waitStoreMsgOK: false,
  };
  const backTopic = properties.get(MessageConst.PROPERTY_RETRY_TOPIC) ?? msgExt.topic;
  return broker.messageStore.putMessage(inner).then((result: PutMessageResult) => {
    if (result.putMessageStatus !== PutMessageStatus.PUT_OK) {
      return respond(request, ResponseCode.SYSTEM_ERROR, result.putMessageStatus);
    }
    const stats = broker.brokerStatsManager;
    if (scheduledLevel > 0) {
      // The store wrote it to SCHEDULE_TOPIC_XXXX, queue level - 1.
      const schedule = TopicValidator.RMQ_SYS_SCHEDULE_TOPIC;
      const wrote = result.appendMessageResult?.wroteBytes ?? 0;
      stats.incTopicPutNums(schedule);
      stats.incTopicPutSize(schedule, wrote);
      stats.incQueuePutNums(schedule, scheduledLevel - 1);
      stats.incQueuePutSize(schedule, scheduledLevel - 1, wrote);
    }
    stats.incSendBackNums(h.group, backTopic);
    return respond(request, ResponseCode.SUCCESS);
  });
};
