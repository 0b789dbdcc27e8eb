import { MixAll } from '../../common/constants.js';
import { MessageConst } from '../../common/message/message-const.js';
import { MessageSysFlag } from '../../common/message/sysflag.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { parseJavaBoolean } from '../../remoting/protocol/header-schema.js';
import type { SendMessageRequestHeader } from '../../remoting/protocol/headers/send-message-request-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import { getProperty } from '../../store/dispatch-request.js';
import type { MessageExtBatch } from '../../store/stored-record-writer.js';
import type { BrokerContext } from './broker-context.js';
import {
  bornHostOf,
  clusterProperty,
  handlePutMessageResult,
  isRefusal,
  msgCheck,
  pickQueueId,
  rewriteProperties,
  sendResponse,
  storeHostOf,
} from './send-message-support.js';

const EMPTY = Buffer.alloc(0);
const DROP_FOR_BATCH: readonly string[] = [MessageConst.PROPERTY_CLUSTER];

/**
 * The batch path of SEND_MESSAGE, SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE (a header whose `batch`
 * flag is set; upstream asyncSendBatchMessage): the same topic and queue checks as one message,
 * then the body goes to the store as sent (MessageDecoder.encodeMessages entries), with the header's
 * properties plus CLUSTER appended to every message's own. The store refuses transactional and
 * delayed batches and malformed bodies (MESSAGE_ILLEGAL). Upstream's topic length check here cannot
 * fail after msgCheck's validateTopic and is left out.
 *
 * A batch to a `%RETRY%` topic is refused with MESSAGE_ILLEGAL, as brokers before 4.7.0 and from
 * 5.0.0 on do; 4.7.0 to 4.9.8 store it without the retry/DLQ handling (their client never sends one).
 */
export function sendBatchMessage(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  h: SendMessageRequestHeader,
): RemotingCommand | Promise<RemotingCommand> {
  const topicConfig = msgCheck(broker, ctx, request, h);
  if (isRefusal(topicConfig)) return topicConfig;
  const queueId = pickQueueId(broker, request, h.queueId, topicConfig);
  if (isRefusal(queueId)) return queueId;
  if (h.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
    return sendResponse(
      broker,
      request,
      ResponseCode.MESSAGE_ILLEGAL,
      `batch request does not support retry group ${h.topic}`,
    );
  }
  let sysFlag = h.sysFlag;
  if (topicConfig.topicFilterType === 'MULTI_TAG') sysFlag |= MessageSysFlag.MULTI_TAGS_FLAG;
  const props = h.properties ?? '';
  const wait = getProperty(props, MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
  const batch: MessageExtBatch = {
    topic: h.topic,
    queueId,
    body: request.body ?? EMPTY,
    propertiesString: rewriteProperties(
      props,
      DROP_FOR_BATCH,
      clusterProperty(broker.config.brokerClusterName),
    ),
    sysFlag,
    bornTimestamp: h.bornTimestamp,
    bornHost: bornHostOf(ctx),
    storeHost: storeHostOf(broker),
    reconsumeTimes: h.reconsumeTimes ?? 0,
    waitStoreMsgOK: wait === undefined || parseJavaBoolean(wait),
  };
  return broker.messageStore
    .putMessages(batch)
    .then((result) => handlePutMessageResult(broker, request, result, queueId, batch.topic));
}
