import { MixAll } from '../../common/constants.js';
import { MessageConst } from '../../common/message/message-const.js';
import { MessageSysFlag, resetTransactionValue } from '../../common/message/sysflag.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { TopicValidator } from '../../common/validators.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, parseJavaBoolean } from '../../remoting/protocol/header-schema.js';
import { createSendMessageRequestHeaderV1 } from '../../remoting/protocol/headers/send-message-converters.js';
import { SendMessageRequestHeader } from '../../remoting/protocol/headers/send-message-request-header.js';
import { SendMessageRequestHeaderV2 } from '../../remoting/protocol/headers/send-message-request-header-v2.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import { getProperty } from '../../store/dispatch-request.js';
import { PutMessageResult } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';
import { handleScheduleMessage, timerHookContext } from './handle-schedule-message.js';
import { deadLetterQueue, maxReconsumeTimesOf } from './retry-dlq.js';
import { sendBatchMessage } from './send-batch-message.js';
import {
  bornHostOf,
  clusterProperty,
  FAQ_TIP,
  formatProperties,
  handlePutMessageResult,
  isRefusal,
  msgCheck,
  pickQueueId,
  rewriteProperties,
  sendResponse,
  storeHostOf,
} from './send-message-support.js';

const EMPTY = Buffer.alloc(0);
/** Upstream stores a message without its WAIT property (9 bytes saved); CLUSTER is replaced. */
const DROP_FOR_MESSAGE: readonly string[] = [
  MessageConst.PROPERTY_WAIT_STORE_MSG_OK,
  MessageConst.PROPERTY_CLUSTER,
];
const DROP_FOR_HALF: readonly string[] = [
  MessageConst.PROPERTY_CLUSTER,
  MessageConst.PROPERTY_REAL_TOPIC,
  MessageConst.PROPERTY_REAL_QUEUE_ID,
];

/**
 * AbstractSendMessageProcessor.parseRequestHeader: SEND_MESSAGE carries SendMessageRequestHeader,
 * SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE its one-letter V2 form. A missing required field fails
 * with the schema's "the custom field <x> is null" (SYSTEM_ERROR).
 */
export function parseSendMessageRequestHeader(request: RemotingCommand): SendMessageRequestHeader {
  if (request.code === RequestCode.SEND_MESSAGE) {
    return decodeHeader(SendMessageRequestHeader, request.extFields);
  }
  return createSendMessageRequestHeaderV1(decodeHeader(SendMessageRequestHeaderV2, request.extFields));
}

/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320), upstream's
 * SendMessageProcessor: the header's `batch` flag, not the code, picks the batch path.
 */
export const sendMessage: BrokerRequestHandler = (broker, ctx, request) => {
  const h = parseSendMessageRequestHeader(request);
  return h.batch ? sendBatchMessage(broker, ctx, request, h) : sendOneMessage(broker, ctx, request, h);
};

/** Where handleRetryAndDLQ sends a message, and the config whose filter type sets MULTI_TAGS_FLAG. */
interface Destination {
  topic: string;
  queueId: number;
  filterConfig: Readonly<TopicConfig>;
}

/**
 * handleRetryAndDLQ: a message to `%RETRY%<group>` needs the group (SUBSCRIPTION_GROUP_NOT_EXIST
 * otherwise) and goes to `%DLQ%<group>` (one queue, read-write, created on first use) once its
 * reconsumeTimes reaches the group's retryMaxTimes, or the header's maxReconsumeTimes from clients
 * of version 3.4.9 on. Upstream also sets DELAY=0 there but then replaces the properties with the
 * header's, so a DELAY the client sent stays; so it does here.
 */
function handleRetryAndDLQ(
  broker: BrokerContext,
  request: RemotingCommand,
  h: SendMessageRequestHeader,
  queueId: number,
  topicConfig: Readonly<TopicConfig>,
): Destination | RemotingCommand {
  const topic = h.topic;
  if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX))
    return { topic, queueId, filterConfig: topicConfig };
  const group = topic.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length);
  const groupConfig = broker.subscriptionGroupManager.findSubscriptionGroupConfig(group);
  if (groupConfig === undefined) {
    return sendResponse(
      broker,
      request,
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group not exist, ${group} ${FAQ_TIP}`,
    );
  }
  const maxReconsumeTimes = maxReconsumeTimesOf(request, groupConfig, h.maxReconsumeTimes);
  if ((h.reconsumeTimes ?? 0) < maxReconsumeTimes) return { topic, queueId, filterConfig: topicConfig };
  const dlq = deadLetterQueue(broker, group);
  return { topic: dlq.topic, queueId: dlq.queueId, filterConfig: dlq.topicConfig };
}

/**
 * One message (upstream asyncSendMessage): checks, retry/DLQ redirection, then the store. The stored
 * properties are the header's without WAIT (which only decides whether a SYNC_FLUSH append waits for
 * its fdatasync) and with CLUSTER set to this broker's cluster. A transaction-prepared message
 * (TRAN_MSG=true) is refused when rejectTransactionMessage is set, else stored as upstream's
 * TransactionalMessageBridge stores a half message. Delay levels are the store's job.
 */
export function sendOneMessage(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  h: SendMessageRequestHeader,
): RemotingCommand | Promise<RemotingCommand> {
  const topicConfig = msgCheck(broker, ctx, request, h);
  if (isRefusal(topicConfig)) return topicConfig;
  const queueId = pickQueueId(broker, request, h.queueId, topicConfig);
  if (isRefusal(queueId)) return queueId;
  const destination = handleRetryAndDLQ(broker, request, h, queueId, topicConfig);
  if (isRefusal(destination)) return destination;
  let sysFlag = h.sysFlag;
  if (destination.filterConfig.topicFilterType === 'MULTI_TAG') sysFlag |= MessageSysFlag.MULTI_TAGS_FLAG;
  const props = h.properties ?? '';
  const wait = getProperty(props, MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
  const cluster = broker.config.brokerClusterName;
  const inner: MessageExtBrokerInner = {
    topic: destination.topic,
    queueId: destination.queueId,
    flag: h.flag,
    body: request.body ?? EMPTY,
    propertiesString: '',
    tagsCode: tagsString2tagsCode(getProperty(props, MessageConst.PROPERTY_TAGS)),
    sysFlag,
    bornTimestamp: h.bornTimestamp,
    bornHost: bornHostOf(ctx),
    storeHost: storeHostOf(broker),
    reconsumeTimes: h.reconsumeTimes ?? 0,
    preparedTransactionOffset: 0n,
    waitStoreMsgOK: wait === undefined || parseJavaBoolean(wait),
  };
  const tranMsg = getProperty(props, MessageConst.PROPERTY_TRANSACTION_PREPARED);
  if (tranMsg !== undefined && parseJavaBoolean(tranMsg)) {
    if (broker.config.rejectTransactionMessage) {
      return sendResponse(
        broker,
        request,
        ResponseCode.NO_PERMISSION,
        `the broker[${broker.config.brokerIP1}] sending transaction message is forbidden`,
      );
    }
    // TransactionalMessageBridge.parseHalfMessageInner; the properties keep WAIT there.
    inner.propertiesString = rewriteProperties(
      props,
      DROP_FOR_HALF,
      formatProperties(
        [MessageConst.PROPERTY_CLUSTER, cluster],
        [MessageConst.PROPERTY_REAL_TOPIC, inner.topic],
        [MessageConst.PROPERTY_REAL_QUEUE_ID, String(inner.queueId)],
      ),
    );
    inner.sysFlag = resetTransactionValue(inner.sysFlag, MessageSysFlag.TRANSACTION_NOT_TYPE);
    inner.topic = TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC;
    inner.queueId = 0;
  } else {
    inner.propertiesString = rewriteProperties(props, DROP_FOR_MESSAGE, clusterProperty(cluster));
    // 5.x timer messages: parked in the timer topic, or refused as upstream's put hook refuses them.
    const refusal = handleScheduleMessage(timerHookContext(broker), inner);
    if (refusal !== undefined) {
      return handlePutMessageResult(broker, request, new PutMessageResult(refusal), queueId, inner.topic);
    }
  }
  return broker.messageStore
    .putMessage(inner)
    .then((result) => handlePutMessageResult(broker, request, result, queueId, inner.topic));
}
