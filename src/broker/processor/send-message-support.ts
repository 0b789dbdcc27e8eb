/**
 * What the send paths share (upstream AbstractSendMessageProcessor.msgCheck, SendMessageProcessor.preSend
 * and handlePutMessageResult, 4.9.8): the response every send answer starts from, the topic checks
 * with auto-creation, the hosts a message records, the properties rewrite, and the mapping of the
 * store's PutMessageStatus to a response code and remark.
 */
import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { RocketMQError } from '../../common/errors.js';
import { javaFormatFixed } from '../../common/java-format.js';
import { type HostAddress, ipToBytes, UNSPECIFIED_HOST } from '../../common/message/host.js';
import {
  MessageConst,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
} from '../../common/message/message-const.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { isNotAllowedSendTopic, validateTopic } from '../../common/validators.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { encodeHeaderFast } from '../../remoting/protocol/header-schema.js';
import type { SendMessageRequestHeader } from '../../remoting/protocol/headers/send-message-request-header.js';
import { SendMessageResponseHeader } from '../../remoting/protocol/headers/send-message-response-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { parseAddress } from '../../remoting/transport/address.js';
import type { Connection, ProcessorContext } from '../../remoting/transport/index.js';
import { StorePath } from '../../store/config.js';
import { diskPartitionSpaceUsedPercent } from '../../store/disk-usage.js';
import { type PutMessageResult, PutMessageStatus } from '../../store/put-message-result.js';
import type { BrokerContext } from './broker-context.js';
import type { TimerRefusal } from './handle-schedule-message.js';

/** FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL), and SUBSCRIPTION_GROUP_NOT_EXIST's (the same page). */
export const FAQ_TIP = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/** AbstractSendMessageProcessor.DLQ_NUMS_PER_GROUP. */
export const DLQ_NUMS_PER_GROUP = 1;

/** Upstream draws `nextInt(99999999) % queues` for a send with a negative queueId. */
export function randomQueueId(writeQueueNums: number): number {
  return Math.floor(Math.random() * 99_999_999) % writeQueueNums;
}

const FAST_KEYS: readonly string[] = (SendMessageResponseHeader.fastOrder ?? []).map((f) => f.key);

/**
 * The answer every send starts from: MSG_REGION and TRACE_ON in extFields, which the 4.9.8 client
 * reads without a null check on any success-like code, and, for a stored message, the
 * SendMessageResponseHeader fields (`result`).
 */
export function sendResponse(
  broker: BrokerContext,
  request: RemotingCommand,
  code: number,
  remark?: string,
  result?: SendMessageResponseHeader,
): RemotingCommand {
  const extFields: Record<string, string> = {
    [MessageConst.PROPERTY_MSG_REGION]: broker.config.regionId,
    [MessageConst.PROPERTY_TRACE_SWITCH]: broker.config.traceOn ? 'true' : 'false',
  };
  if (result !== undefined) encodeHeaderFast(SendMessageResponseHeader, result, extFields);
  const response = createResponse(request, code, { remark, extFields });
  response.fastEncodedKeys = FAST_KEYS;
  return response;
}

/** upstream TopicConfig.toString, which the illegal-queueId remark quotes. */
export function topicConfigToString(tc: Readonly<TopicConfig>): string {
  return (
    `TopicConfig [topicName=${tc.topicName}, readQueueNums=${tc.readQueueNums}, ` +
    `writeQueueNums=${tc.writeQueueNums}, perm=${PermName.perm2String(tc.perm)}, ` +
    `topicFilterType=${tc.topicFilterType}, topicSysFlag=${tc.topicSysFlag}, order=${tc.order}]`
  );
}

/** True for a check's refusal (a response), false for what the check returns on success. */
export function isRefusal<T extends object | number>(v: T | RemotingCommand): v is RemotingCommand {
  return typeof v === 'object' && 'opaque' in v && 'serializeType' in v;
}

/**
 * msgCheck: the topic may be written (order topics on a broker without write permission may not;
 * upstream lets other topics through and relies on routes showing the broker read-only), its name
 * is valid and not a forbidden system topic, it exists or is created from `defaultTopic` (TBW102)
 * or, for a retry topic, on its own; and the queueId is below its queue count. Returns the topic's
 * config, or the refusal to send.
 */
export function msgCheck(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  h: SendMessageRequestHeader,
): Readonly<TopicConfig> | RemotingCommand {
  const topics = broker.topicConfigManager;
  if (!PermName.isWriteable(broker.config.brokerPermission) && topics.isOrderTopic(h.topic)) {
    return sendResponse(
      broker,
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${broker.config.brokerIP1}] sending message is forbidden`,
    );
  }
  try {
    validateTopic(h.topic);
  } catch (error) {
    if (!(error instanceof RocketMQError)) throw error;
    return sendResponse(broker, request, error.responseCode, error.message);
  }
  if (isNotAllowedSendTopic(h.topic)) {
    return sendResponse(
      broker,
      request,
      ResponseCode.NO_PERMISSION,
      `Sending message to topic[${h.topic}] is forbidden.`,
    );
  }
  let topicConfig = topics.selectTopicConfig(h.topic);
  if (topicConfig === undefined) {
    const refusal = topics.autoCreateRefusal(h.topic, ctx.remoteAddress);
    if (refusal !== undefined) {
      return sendResponse(broker, request, ResponseCode.TOPIC_NOT_EXIST, `${refusal}${FAQ_TIP}`);
    }
    const isRetry = h.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
    const topicSysFlag = h.unitMode ? TopicSysFlag.buildSysFlag(!isRetry, isRetry) : 0;
    // Creating a topic on first send is what autoCreateTopicEnable is for: the topic manager logs
    // it at info; only a topic that could not be created is worth upstream's warn.
    topicConfig = topics.createTopicInSendMessageMethod(
      h.topic,
      h.defaultTopic,
      ctx.remoteAddress,
      h.defaultTopicQueueNums,
      topicSysFlag,
    );
    if (topicConfig === undefined && isRetry) {
      topicConfig = topics.createTopicInSendMessageBackMethod(
        h.topic,
        1,
        PermName.PERM_WRITE | PermName.PERM_READ,
        topicSysFlag,
      );
    }
    if (topicConfig === undefined) {
      broker.logger.warn('the topic not exist', { topic: h.topic, producer: ctx.remoteAddress });
      return sendResponse(
        broker,
        request,
        ResponseCode.TOPIC_NOT_EXIST,
        `topic[${h.topic}] not exist, apply first please!${FAQ_TIP}`,
      );
    }
  }
  if (h.queueId >= Math.max(topicConfig.writeQueueNums, topicConfig.readQueueNums)) {
    const errorInfo = `request queueId[${h.queueId}] is illegal, ${topicConfigToString(topicConfig)} Producer: ${ctx.remoteAddress}`;
    broker.logger.warn(errorInfo);
    return sendResponse(broker, request, ResponseCode.SYSTEM_ERROR, errorInfo);
  }
  return topicConfig;
}

/**
 * The queue a send goes to: its own, or a random writable one for a negative queueId. Upstream
 * divides by zero on a topic without write queues (SYSTEM_ERROR with the exception's text); this
 * answers SYSTEM_ERROR with a remark that says so.
 */
export function pickQueueId(
  broker: BrokerContext,
  request: RemotingCommand,
  queueId: number,
  topicConfig: Readonly<TopicConfig>,
): number | RemotingCommand {
  if (queueId >= 0) return queueId;
  if (topicConfig.writeQueueNums <= 0) {
    return sendResponse(
      broker,
      request,
      ResponseCode.SYSTEM_ERROR,
      `topic[${topicConfig.topicName}] has no write queue`,
    );
  }
  return randomQueueId(topicConfig.writeQueueNums);
}

// ---------------------------------------------------------------- hosts

function toHost(address: string): HostAddress | undefined {
  try {
    const { host, port } = parseAddress(address);
    ipToBytes(host);
    return { address: host, port };
  } catch {
    return undefined;
  }
}

const bornHosts = new WeakMap<Connection, HostAddress>();

/**
 * The producer's address as the message records it (Netty's channel.remoteAddress()), parsed once
 * per connection. A peer whose address is not `ip:port` (a stream that is not a socket and was
 * given no such name) is recorded as 0.0.0.0:0, where Java would always have an address.
 */
export function bornHostOf(ctx: ProcessorContext): HostAddress {
  const connection = ctx.connection;
  let host = bornHosts.get(connection);
  if (host === undefined) {
    host = toHost(ctx.remoteAddress) ?? UNSPECIFIED_HOST;
    bornHosts.set(connection, host);
  }
  return host;
}

let storeHostText = '';
let storeHostValue: HostAddress = UNSPECIFIED_HOST;

/**
 * brokerIP1:listenPort, the store host of every message (and so of its offsetMsgId, which clients
 * dial). Throws when brokerIP1 is not an IP address: Java resolves a host name, we cannot here.
 */
export function storeHostOf(broker: BrokerContext): HostAddress {
  const addr = broker.brokerAddr;
  if (addr !== storeHostText) {
    const host = toHost(addr);
    if (host === undefined)
      throw new RocketMQError(`brokerIP1 of the broker address ${addr} is not an IP address`);
    storeHostValue = host;
    storeHostText = addr;
  }
  return storeHostValue;
}

// ---------------------------------------------------------------- properties

function isNamed(props: string, index: number, end: number, name: string): boolean {
  return (
    end - index > name.length &&
    props.startsWith(name, index) &&
    props.charCodeAt(index + name.length) === NAME_VALUE_SEPARATOR_CODE
  );
}

const NAME_VALUE_SEPARATOR_CODE = NAME_VALUE_SEPARATOR.charCodeAt(0);

/** `name\u0001value` pairs joined by \u0002, for rewriteProperties' `append`. */
export function formatProperties(...pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([name, value]) => name + NAME_VALUE_SEPARATOR + value).join(PROPERTY_SEPARATOR);
}

/**
 * The properties string with every entry named in `drop` removed and `append` (formatted pairs)
 * added at the end: what upstream gets by parsing into a HashMap, putting, removing and joining
 * again, without the map. Entries keep their order (Java's is its HashMap's; readers parse the
 * string into a map, so only bytes differ), and entries the parser would skip (empty name or value)
 * stay as sent: every reader skips them the same way.
 */
export function rewriteProperties(props: string, drop: readonly string[], append: string): string {
  let kept: string[] | undefined;
  let index = 0;
  let segment = 0;
  const len = props.length;
  while (index < len) {
    let end = props.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = len;
    let dropped = false;
    for (const name of drop) {
      if (isNamed(props, index, end, name)) {
        dropped = true;
        break;
      }
    }
    if (dropped) {
      kept ??= segment === 0 ? [] : props.slice(0, index - 1).split(PROPERTY_SEPARATOR);
    } else if (kept !== undefined) {
      kept.push(props.slice(index, end));
    }
    segment++;
    index = end + 1;
  }
  const rest = kept === undefined ? props : kept.join(PROPERTY_SEPARATOR);
  return rest.length > 0 ? rest + PROPERTY_SEPARATOR + append : append;
}

let clusterText = '';
let clusterPair = '';

/** `CLUSTER\u0001<cluster>`, built once per cluster name rather than per message. */
export function clusterProperty(cluster: string): string {
  if (cluster !== clusterText || clusterPair.length === 0) {
    clusterPair = formatProperties([MessageConst.PROPERTY_CLUSTER, cluster]);
    clusterText = cluster;
  }
  return clusterPair;
}

// ---------------------------------------------------------------- results

/** handlePutMessageResult's remark for MESSAGE_ILLEGAL and PROPERTIES_SIZE_EXCEEDED. */
export function messageIllegalRemark(maxMessageSize: number): string {
  return `the message is illegal, maybe msg body or properties length not matched. msg body length limit ${maxMessageSize}B, msg properties length limit 32KB.`;
}

/** Java's `%5.2f`. */
function javaFixed(v: number): string {
  return javaFormatFixed(v, 2).padStart(5, ' ');
}

/** SendMessageProcessor.diskUtil: the disk use of the commit log, consume queue and index paths. */
export function diskUtil(broker: BrokerContext): string {
  const root = broker.config.storePathRootDir;
  const commitLogPaths = (broker.config.storePathCommitLog ?? StorePath.commitLog(root)).trim().split(',');
  let physic = 100;
  for (const p of commitLogPaths) physic = Math.min(physic, diskPartitionSpaceUsedPercent(p));
  const logis = diskPartitionSpaceUsedPercent(StorePath.consumeQueue(root));
  const index = diskPartitionSpaceUsedPercent(StorePath.index(root));
  return `CL: ${javaFixed(physic)} CQ: ${javaFixed(logis)} INDEX: ${javaFixed(index)}`;
}

/**
 * handlePutMessageResult: the store's status as a response code and remark. A stored message
 * (PUT_OK and the flush/slave timeouts, which Java clients treat as sent) gets the offsetMsgId
 * (comma-joined for a batch), `queueId` (the queue asked for or picked, even when the message went
 * to a DLQ or the schedule topic) and its queue offset; transactionId is never set, as upstream.
 */
export function handlePutMessageResult(
  broker: BrokerContext,
  request: RemotingCommand,
  result: PutMessageResult,
  queueId: number,
  topic: string,
): RemotingCommand {
  let code: number;
  switch (result.putMessageStatus) {
    case PutMessageStatus.PUT_OK:
      code = ResponseCode.SUCCESS;
      break;
    case PutMessageStatus.FLUSH_DISK_TIMEOUT:
      code = ResponseCode.FLUSH_DISK_TIMEOUT;
      break;
    case PutMessageStatus.FLUSH_SLAVE_TIMEOUT:
      code = ResponseCode.FLUSH_SLAVE_TIMEOUT;
      break;
    case PutMessageStatus.SLAVE_NOT_AVAILABLE:
      code = ResponseCode.SLAVE_NOT_AVAILABLE;
      break;
    case PutMessageStatus.CREATE_MAPEDFILE_FAILED:
      return sendResponse(
        broker,
        request,
        ResponseCode.SYSTEM_ERROR,
        'create mapped file failed, server is busy or broken.',
      );
    case PutMessageStatus.MESSAGE_ILLEGAL:
    case PutMessageStatus.PROPERTIES_SIZE_EXCEEDED:
      return sendResponse(
        broker,
        request,
        ResponseCode.MESSAGE_ILLEGAL,
        messageIllegalRemark(broker.storeConfig.maxMessageSize),
      );
    case PutMessageStatus.SERVICE_NOT_AVAILABLE:
      return sendResponse(
        broker,
        request,
        ResponseCode.SERVICE_NOT_AVAILABLE,
        `service not available now. It may be caused by one of the following reasons: the broker's disk is full [${diskUtil(broker)}], messages are put to the slave, message store has been shut down, etc.`,
      );
    case PutMessageStatus.OS_PAGECACHE_BUSY:
      return sendResponse(
        broker,
        request,
        ResponseCode.SYSTEM_ERROR,
        '[PC_SYNCHRONIZED]broker busy, start flow control for a while',
      );
    case PutMessageStatus.LMQ_CONSUME_QUEUE_NUM_EXCEEDED:
      return sendResponse(
        broker,
        request,
        ResponseCode.SYSTEM_ERROR,
        '[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num exceed maxLmqConsumeQueueNum config num, default limit 2w.',
      );
    case PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL:
    case PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL:
    case PutMessageStatus.WHEEL_TIMER_NOT_ENABLE: {
      const [timerCode, remark] = timerRefusalResponse(broker, result.putMessageStatus);
      return sendResponse(broker, request, timerCode, remark);
    }
    case PutMessageStatus.UNKNOWN_ERROR:
      return sendResponse(broker, request, ResponseCode.SYSTEM_ERROR, 'UNKNOWN_ERROR');
    default:
      return sendResponse(broker, request, ResponseCode.SYSTEM_ERROR, 'UNKNOWN_ERROR DEFAULT');
  }
  const append = result.appendMessageResult;
  // Java would fail on the missing result with a NullPointerException (SYSTEM_ERROR).
  if (append === undefined) {
    return sendResponse(broker, request, ResponseCode.SYSTEM_ERROR, 'store putMessage return null');
  }
  // Upstream counts every stored send, flush and slave timeouts included.
  const stats = broker.brokerStatsManager;
  stats.incTopicPutNums(topic, append.msgNum, 1);
  stats.incTopicPutSize(topic, append.wroteBytes);
  stats.incBrokerPutNums(append.msgNum);
  return sendResponse(broker, request, code, undefined, {
    msgId: append.msgId,
    queueId,
    queueOffset: append.logicsOffset,
    transactionId: undefined,
  });
}

/** The response upstream's handlePutMessageResult gives a timer refusal: [code, remark]. */
export function timerRefusalResponse(broker: BrokerContext, status: TimerRefusal): readonly [number, string] {
  const c = broker.config;
  switch (status) {
    case PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL:
      return [
        ResponseCode.MESSAGE_ILLEGAL,
        `timer message illegal, the delay time should not be bigger than the max delay ${c.timerMaxDelaySec * 1000}ms; or if set del msg, the delay time should be bigger than the current time`,
      ];
    case PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL: {
      const n = BigInt(c.timerCongestNumEachSlot);
      return [
        ResponseCode.SYSTEM_ERROR,
        `timer message is under flow control, max num limit is ${n * 2n} or the current value is greater than ${n} and less than ${n * 2n}, trigger random flow control`,
      ];
    }
    default:
      return [
        ResponseCode.SYSTEM_ERROR,
        `accurate timer message is not enabled, timerWheelEnable is ${c.timerWheelEnable}`,
      ];
  }
}
