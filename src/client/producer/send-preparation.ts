/**
 * A send call's message made ready once, before its first attempt: validated, given its UNIQ_KEY,
 * compressed when big enough, its properties string and sysFlag computed. Every retry sends the same
 * bytes and the same id. Batches are encoded as upstream's MessageBatch.
 */
import { MixAll } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { parseJavaBoolean, parseJavaInt } from '../../common/java-parse.js';
import { encodeBatch } from '../../common/message/batch.js';
import { compressBody, compressedSysFlag } from '../../common/message/compression.js';
import { Message } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { MessageSysFlag } from '../../common/message/sysflag.js';
import { checkBatch, checkTopic } from '../../common/validators.js';
import { getUniqID, setUniqID } from './message-client-id-setter.js';
import { encodeProperties, validateMessage } from './message-input.js';
import { MessageType } from './send-hooks.js';

export interface PreparedSend {
  /** The message the caller gave (for a batch, the batch message upstream builds). */
  readonly message: Message;
  /** The caller's messages of a batch. */
  readonly batch: readonly Message[] | undefined;
  /** The topic as the caller named it. */
  readonly topic: string;
  /** The topic on the wire (with the namespace). */
  readonly wireTopic: string;
  readonly body: Buffer;
  readonly sysFlag: number;
  readonly flag: number;
  readonly properties: string;
  /** UNIQ_KEY, or the batch's UNIQ_KEYs joined with commas. */
  readonly uniqMsgId: string;
  readonly reconsumeTimes: number;
  readonly maxReconsumeTimes: number | undefined;
  readonly msgType: MessageType;
}

export interface PrepareOptions {
  readonly maxMessageSize: number;
  readonly compressMsgBodyOverHowmuch: number;
  readonly compressLevel: number;
  readonly namespace: string | undefined;
  readonly wrap: (topic: string) => string;
}

function messageType(msg: Message): MessageType {
  if (
    msg.properties.has('__STARTDELIVERTIME') ||
    msg.properties.has(MessageConst.PROPERTY_DELAY_TIME_LEVEL)
  ) {
    return MessageType.Delay_Msg;
  }
  if (msg.properties.get(MessageConst.PROPERTY_TRANSACTION_PREPARED) === 'true')
    return MessageType.Trans_Msg_Half;
  return MessageType.Normal_Msg;
}

/**
 * The int a retry-topic property carries into the header, taken off the message as upstream does
 * (whose Integer.valueOf fails the send on anything else).
 */
function takeIntProperty(msg: Message, name: string): number | undefined {
  const text = msg.properties.get(name);
  if (text === undefined) return undefined;
  const value = parseJavaInt(text);
  if (value === undefined) {
    throw new ValidationError(`message property ${name} must be an int, got ${JSON.stringify(text)}`, 13);
  }
  msg.properties.delete(name);
  return value;
}

/** Upstream checks the topic after the namespace is put in front, so the wire topic must pass too. */
function wireTopicOf(topic: string, options: PrepareOptions): string {
  const wireTopic = options.wrap(topic);
  if (wireTopic !== topic) checkTopic(wireTopic);
  return wireTopic;
}

export function prepareSend(msg: Message, options: PrepareOptions): PreparedSend {
  validateMessage(msg, options.maxMessageSize);
  const wireTopic = wireTopicOf(msg.topic, options);
  setUniqID(msg);
  if (options.namespace !== undefined) msg.instanceId = options.namespace;
  let reconsumeTimes = 0;
  let maxReconsumeTimes: number | undefined;
  if (wireTopic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
    reconsumeTimes = takeIntProperty(msg, MessageConst.PROPERTY_RECONSUME_TIME) ?? 0;
    maxReconsumeTimes = takeIntProperty(msg, MessageConst.PROPERTY_MAX_RECONSUME_TIMES);
  }
  let body = msg.body;
  let sysFlag = 0;
  if (body.length >= options.compressMsgBodyOverHowmuch) {
    body = compressBody(body, undefined, options.compressLevel);
    sysFlag |= compressedSysFlag();
  }
  if (parseJavaBoolean(msg.properties.get(MessageConst.PROPERTY_TRANSACTION_PREPARED))) {
    sysFlag |= MessageSysFlag.TRANSACTION_PREPARED_TYPE;
  }
  return {
    message: msg,
    batch: undefined,
    topic: msg.topic,
    wireTopic,
    body,
    sysFlag,
    flag: msg.flag,
    properties: encodeProperties(msg),
    uniqMsgId: getUniqID(msg) as string,
    reconsumeTimes,
    maxReconsumeTimes,
    msgType: messageType(msg),
  };
}

/**
 * DefaultMQProducer.batch + MessageBatch: one topic, no delay, no retry topic; each message checked
 * and given its UNIQ_KEY; the encoded batch is checked against maxMessageSize like one message, and
 * never compressed.
 */
export function prepareBatch(messages: readonly Message[], options: PrepareOptions): PreparedSend {
  checkBatch(messages);
  for (const m of messages) {
    validateMessage(m, options.maxMessageSize);
    setUniqID(m);
    encodeProperties(m);
  }
  const first = messages[0] as Message;
  const batch = new Message();
  batch.topic = first.topic;
  batch.waitStoreMsgOK = first.waitStoreMsgOK;
  batch.body = encodeBatch(messages);
  validateMessage(batch, options.maxMessageSize);
  if (options.namespace !== undefined) batch.instanceId = options.namespace;
  return {
    message: batch,
    batch: messages,
    topic: batch.topic,
    wireTopic: wireTopicOf(batch.topic, options),
    body: batch.body,
    sysFlag: 0,
    flag: batch.flag,
    properties: encodeProperties(batch),
    uniqMsgId: messages.map((m) => getUniqID(m) as string).join(','),
    reconsumeTimes: 0,
    maxReconsumeTimes: undefined,
    msgType: MessageType.Normal_Msg,
  };
}
