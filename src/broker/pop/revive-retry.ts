/**
 * Re-puts one un-acked message of an expired checkpoint (upstream PopReviveService.reviveRetry):
 * a copy into the group's POP retry topic (`%RETRY%<group>_<topic>`, or `%RETRY%<group>+<topic>` with
 * enableRetryTopicV2; a message popped from a retry topic goes back to that same topic) with
 * reconsumeTimes + 1, `1ST_POP_TIME` and `ORIGIN_GROUP` (the checkpoint's group), or, once reconsumeTimes has reached the group's
 * retryMaxTimes, into `%DLQ%<group>` (ours: upstream's broker has no DLQ on this path).
 *
 * As upstream: the retry topic is created on first use with PopAckConstants.retryQueueNum (1) queue,
 * perm read+write, and the group's offset on it starts at 0; the copy goes to queue 0, born at the
 * original's born time on this broker's host, with the original's body as stored (compressed or not),
 * flag, sysFlag, tags and every property, so its UNIQ_KEY (the client's msgId) stays the same.
 * Upstream sets neither RETRY_TOPIC nor ORIGIN_MESSAGE_ID on a revived message; the DLQ copy gets
 * both, as CONSUMER_SEND_MSG_BACK gives its DLQ copies.
 */
import { MixAll, PermName } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { buildPopRetryTopic, PopMessageConst, parseNormalTopic } from '../../common/pop/index.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { deadLetterQueue } from '../processor/retry-dlq.js';
import { storeHostOf } from '../processor/send-message-support.js';
import type { ReviveCheckPoint } from './pop-revive-state.js';
import { POP_RETRY_QUEUE_NUM, stored } from './revive-records.js';

/** What became of one message: re-put to retry / DLQ, gone from the store, dropped, or to try again. */
export type ReviveOutcome = 'retry' | 'dlq' | 'missing' | 'skipped' | 'failed';

/** The stored message at `offset` of the checkpoint's queue, body as stored; undefined when gone. */
function lookMessage(broker: BrokerContext, ck: ReviveCheckPoint, offset: bigint): MessageExt | undefined {
  const phy = broker.messageStore.getCommitLogOffsetInQueue(ck.topic, ck.queueId, offset);
  if (phy < 0n) return undefined;
  const record = broker.messageStore.selectOneMessageByOffset(phy);
  if (record === undefined) return undefined;
  try {
    const msg = decodeMessage(record, 0, { decompress: false });
    return msg.commitLogOffset === phy && msg.topic === ck.topic ? msg : undefined;
  } catch {
    return undefined;
  }
}

/** Upstream addRetryTopicIfNotExist + initPopRetryOffset; undefined when the name is not a valid topic. */
function retryTopicFor(broker: BrokerContext, ck: ReviveCheckPoint): string | undefined {
  const topic = ck.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)
    ? ck.topic
    : buildPopRetryTopic(ck.topic, ck.group, broker.config.enableRetryTopicV2);
  if (broker.topicConfigManager.selectTopicConfig(topic) !== undefined) return topic;
  try {
    broker.topicConfigManager.createTopicInSendMessageBackMethod(
      topic,
      POP_RETRY_QUEUE_NUM,
      PermName.PERM_READ | PermName.PERM_WRITE,
      0,
    );
  } catch (error) {
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
  if (broker.consumerOffsetManager.queryOffset(ck.group, topic, 0) < 0n) {
    broker.consumerOffsetManager.commitOffset('initPopRetryOffset', ck.group, topic, 0, 0n);
  }
  return topic;
}

export async function reviveOne(
  broker: BrokerContext,
  ck: ReviveCheckPoint,
  offset: bigint,
): Promise<ReviveOutcome> {
  // Upstream skips the checkpoint when its topic or group is gone.
  const normalTopic = parseNormalTopic(ck.topic, ck.group);
  const groupConfig = broker.subscriptionGroupManager.findSubscriptionGroupConfig(ck.group);
  if (broker.topicConfigManager.selectTopicConfig(normalTopic) === undefined || groupConfig === undefined) {
    return 'skipped';
  }
  const msg = lookMessage(broker, ck, offset);
  if (msg === undefined) return 'missing';

  const properties = new Map(msg.properties);
  const host = storeHostOf(broker);
  let topic: string | undefined;
  let queueId = 0;
  let outcome: ReviveOutcome = 'retry';
  if (msg.reconsumeTimes < groupConfig.retryMaxTimes) topic = retryTopicFor(broker, ck);
  if (topic === undefined) {
    const dlq = deadLetterQueue(broker, ck.group);
    topic = dlq.topic;
    queueId = dlq.queueId;
    outcome = 'dlq';
    if (!properties.has(MessageConst.PROPERTY_RETRY_TOPIC)) {
      properties.set(MessageConst.PROPERTY_RETRY_TOPIC, normalTopic);
    }
    const origin = properties.get(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID);
    if (origin === undefined || origin.trim() === '') {
      properties.set(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID, msg.offsetMsgId);
    }
  }
  if (msg.reconsumeTimes === 0 || !properties.has(PopMessageConst.PROPERTY_FIRST_POP_TIME)) {
    properties.set(PopMessageConst.PROPERTY_FIRST_POP_TIME, String(ck.popTime));
  }
  // Upstream (5.5.0 reviveRetry) names the checkpoint's group on every re-put, replacing any value.
  properties.set(PopMessageConst.PROPERTY_ORIGIN_GROUP, ck.group);
  const inner: MessageExtBrokerInner = {
    topic,
    queueId,
    flag: msg.flag,
    body: msg.body,
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(msg.tags),
    sysFlag: msg.sysFlag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: host,
    storeHost: host,
    reconsumeTimes: (msg.reconsumeTimes + 1) | 0,
    preparedTransactionOffset: 0n,
    // An internal put: a DELAY property the original carried must not send it through the schedule.
    delayTimeLevel: 0,
  };
  const result = await broker.messageStore.putMessage(inner);
  if (!stored(result)) return 'failed';
  broker.brokerStatsManager.incTopicPutNums(topic);
  broker.brokerStatsManager.incTopicPutSize(topic, result.appendMessageResult?.wroteBytes ?? 0);
  return outcome;
}
