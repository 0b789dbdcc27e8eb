/**
 * Turns what the broker hands to the store into stored-format records (upstream `MessageExtEncoder` and
 * `DefaultAppendMessageCallback.doAppend`). `prepare*` runs when the append is requested: it checks the
 * sizes, computes the body CRC and the record length, and applies the delay-level rewrite. `encode*`
 * runs when the turn's write is assembled: it writes the record straight into the write buffer with the
 * queue offset, physical offset and store timestamp of that moment, so nothing is encoded twice.
 */

import { messageBodyCrc } from '../common/message/crc32.js';
import { type HostAddress, hostByteLength, hostToBytes } from '../common/message/host.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE } from '../common/message/message.js';
import { MessageConst, PROPERTY_SEPARATOR } from '../common/message/message-const.js';
import { messageProperties2String, string2messageProperties } from '../common/message/properties.js';
import { storedRecordSize } from '../common/message/stored-format.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
import { tagsString2tagsCode } from '../common/message/tag-hash.js';
import { TopicValidator } from '../common/validators.js';
import { type DelayLevelTable, delayLevel2QueueId, parseDelayLevel } from './delay-level.js';
import { getProperty } from './dispatch-request.js';
import { PutMessageStatus } from './put-message-result.js';

/** What the broker builds for one message (upstream `MessageExtBrokerInner`), without re-encoding. */
export interface MessageExtBrokerInner {
  topic: string;
  queueId: number;
  flag: number;
  body: Buffer;
  propertiesString: string;
  /** TAGS hash (`tagsString2tagsCode`); goes to the consume queue. */
  tagsCode: bigint;
  sysFlag: number;
  bornTimestamp: bigint;
  bornHost: HostAddress;
  storeHost: HostAddress;
  reconsumeTimes: number;
  preparedTransactionOffset: bigint;
  /** The WAIT property: false lets a SYNC_FLUSH append return before its fdatasync [true]. */
  waitStoreMsgOK?: boolean;
}

/**
 * A SEND_BATCH_MESSAGE request (upstream `MessageExtBatch`): `body` is the batch body as sent,
 * `propertiesString` the batch's own properties, appended to every message's (CLUSTER, WAIT...).
 */
export interface MessageExtBatch {
  topic: string;
  queueId: number;
  body: Buffer;
  propertiesString: string;
  sysFlag: number;
  bornTimestamp: bigint;
  bornHost: HostAddress;
  storeHost: HostAddress;
  reconsumeTimes: number;
  waitStoreMsgOK?: boolean;
}

export const END_FILE_MIN_BLANK_LENGTH = 8;
const MAX_TOPIC_BYTES = 127;
const MAX_PROPERTIES_LENGTH = 32767;
/** Upstream reserves 64 KiB beyond the largest body for the rest of a record. */
const RECORD_OVERHEAD_RESERVE = 64 * 1024;
const PROPERTY_SEPARATOR_BYTE = 2;
const TWO_32 = 4294967296;

export interface PrepareLimits {
  maxMessageSize: number;
  mappedFileSize: number;
  delayLevels: DelayLevelTable;
}

export type Refusal = { readonly status: PutMessageStatus; readonly reason: string };

export function isRefusal<T extends object>(v: T | Refusal): v is Refusal {
  return (v as Refusal).status !== undefined;
}

function refuse(status: PutMessageStatus, reason: string): Refusal {
  return { status, reason };
}

const hostBytesCache = new WeakMap<HostAddress, Buffer>();

function hostBytes(host: HostAddress, what: string): Buffer {
  let bytes = hostBytesCache.get(host);
  if (bytes === undefined) {
    bytes = hostToBytes(host, what);
    hostBytesCache.set(host, bytes);
  }
  return bytes;
}

function hostSysFlag(sysFlag: number, bornHost: HostAddress, storeHost: HostAddress): number {
  let flag = sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (hostByteLength(bornHost) === 20) flag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (hostByteLength(storeHost) === 20) flag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  return flag;
}

/** A checked single message, ready to be encoded at its final offsets. */
export class PreparedMessage {
  readonly kind = 0;
  constructor(
    readonly topic: string,
    readonly topicLength: number,
    readonly queueId: number,
    readonly flag: number,
    readonly body: Buffer,
    readonly bodyCRC: number,
    readonly propertiesString: string,
    readonly propertiesLength: number,
    readonly sysFlag: number,
    readonly bornTimestamp: bigint,
    readonly bornHostBytes: Buffer,
    readonly storeHostBytes: Buffer,
    readonly storeHost: HostAddress,
    readonly reconsumeTimes: number,
    readonly preparedTransactionOffset: bigint,
    readonly tagsCode: bigint,
    /** > 0 when the message was rewritten to SCHEDULE_TOPIC_XXXX: its tagsCode is the delivery time. */
    readonly delayLevel: number,
    readonly size: number,
    readonly waitStoreMsgOK: boolean,
  ) {}

  /** PREPARED and ROLLBACK records take queue offset 0 and do not advance the queue. */
  get consumesQueueOffset(): boolean {
    const t = getTransactionValue(this.sysFlag);
    return t === MessageSysFlag.TRANSACTION_NOT_TYPE || t === MessageSysFlag.TRANSACTION_COMMIT_TYPE;
  }
}

function checkTopic(topic: string): { length: number } | Refusal {
  const length = Buffer.byteLength(topic, 'utf8');
  if (length === 0) return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'topic is empty');
  if (length > MAX_TOPIC_BYTES) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `topic of ${length} bytes exceeds ${MAX_TOPIC_BYTES}`);
  }
  // Recovery takes a NUL inside a topic for a torn record; no valid topic name has one.
  if (topic.includes('\u0000'))
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'topic contains a NUL character');
  return { length };
}

function checkRecordSize(size: number, bodyLength: number, limits: PrepareLimits): Refusal | undefined {
  if (bodyLength > limits.maxMessageSize) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `message body of ${bodyLength} bytes exceeds maxMessageSize ${limits.maxMessageSize}`,
    );
  }
  if (size > limits.maxMessageSize + RECORD_OVERHEAD_RESERVE) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `record of ${size} bytes exceeds the largest record size`,
    );
  }
  if (size + END_FILE_MIN_BLANK_LENGTH > limits.mappedFileSize) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `record of ${size} bytes does not fit a commit log file of ${limits.mappedFileSize} bytes`,
    );
  }
  return undefined;
}

/**
 * Checks one message as DefaultMessageStore.checkMessage, the delay rewrite of CommitLog.asyncPutMessage
 * and MessageExtEncoder.encode do, in that order.
 */
export function prepareMessage(
  inner: MessageExtBrokerInner,
  limits: PrepareLimits,
): PreparedMessage | Refusal {
  let topic = inner.topic;
  let queueId = inner.queueId;
  let properties = inner.propertiesString;
  const topicCheck = checkTopic(topic);
  if (isRefusal(topicCheck)) return topicCheck;
  if (properties.length > MAX_PROPERTIES_LENGTH) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `properties of ${properties.length} characters exceed 32767`,
    );
  }
  let delayLevel = 0;
  const tranType = getTransactionValue(inner.sysFlag);
  if (
    tranType === MessageSysFlag.TRANSACTION_NOT_TYPE ||
    tranType === MessageSysFlag.TRANSACTION_COMMIT_TYPE
  ) {
    const delay = getProperty(properties, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
    if (delay !== undefined) {
      const level = parseDelayLevel(delay);
      if (level === undefined) {
        return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `DELAY property "${delay}" is not an int`);
      }
      if (level > 0) {
        delayLevel = Math.min(level, limits.delayLevels.maxDelayLevel);
        const map = string2messageProperties(properties);
        map.set(MessageConst.PROPERTY_DELAY_TIME_LEVEL, String(delayLevel));
        map.set(MessageConst.PROPERTY_REAL_TOPIC, topic);
        map.set(MessageConst.PROPERTY_REAL_QUEUE_ID, String(queueId));
        properties = messageProperties2String(map);
        topic = TopicValidator.RMQ_SYS_SCHEDULE_TOPIC;
        queueId = delayLevel2QueueId(delayLevel);
      }
    }
  }
  const topicLength = topic === inner.topic ? topicCheck.length : Buffer.byteLength(topic, 'utf8');
  const propertiesLength = Buffer.byteLength(properties, 'utf8');
  if (propertiesLength > MAX_PROPERTIES_LENGTH) {
    return refuse(
      PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      `properties of ${propertiesLength} bytes exceed ${MAX_PROPERTIES_LENGTH}`,
    );
  }
  // Recovery takes properties ending in NUL for a torn record (see stored-record-reader).
  if (propertiesLength > 0 && properties.charCodeAt(properties.length - 1) === 0) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'properties end with a NUL character');
  }
  const sysFlag = hostSysFlag(inner.sysFlag, inner.bornHost, inner.storeHost);
  const body = inner.body;
  const size = storedRecordSize(sysFlag, body.length, topicLength, propertiesLength);
  const sizeRefusal = checkRecordSize(size, body.length, limits);
  if (sizeRefusal !== undefined) return sizeRefusal;
  return new PreparedMessage(
    topic,
    topicLength,
    queueId,
    inner.flag | 0,
    body,
    messageBodyCrc(body),
    properties,
    propertiesLength,
    sysFlag,
    inner.bornTimestamp,
    hostBytes(inner.bornHost, 'born host'),
    hostBytes(inner.storeHost, 'store host'),
    inner.storeHost,
    inner.reconsumeTimes | 0,
    inner.preparedTransactionOffset,
    inner.tagsCode,
    delayLevel,
    size,
    inner.waitStoreMsgOK !== false,
  );
}

/** A checked batch: every message's place in the batch body plus what its record needs. */
export class PreparedBatch {
  readonly kind = 1;
  constructor(
    readonly topic: string,
    readonly topicLength: number,
    readonly queueId: number,
    readonly sysFlag: number,
    readonly bornTimestamp: bigint,
    readonly bornHostBytes: Buffer,
    readonly storeHostBytes: Buffer,
    readonly storeHost: HostAddress,
    readonly reconsumeTimes: number,
    readonly body: Buffer,
    readonly batchProperties: Buffer,
    /** Per message: flag, body start, body length, properties start, properties length, CRC, record size, separator. */
    readonly entries: Int32Array,
    /** Per message: properties as stored (own + batch), for the dispatch. */
    readonly propertiesStrings: readonly string[],
    readonly tagsCodes: readonly bigint[],
    readonly count: number,
    readonly size: number,
    readonly waitStoreMsgOK: boolean,
  ) {}
}

const ENTRY_FIELDS = 8;

/** Checks a batch as DefaultMessageStore.checkMessages, asyncPutMessages and the batch encoder do. */
export function prepareBatch(batch: MessageExtBatch, limits: PrepareLimits): PreparedBatch | Refusal {
  if (getTransactionValue(batch.sysFlag) !== MessageSysFlag.TRANSACTION_NOT_TYPE) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'a batch cannot be transactional');
  }
  const delay = getProperty(batch.propertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  if (delay !== undefined && (parseDelayLevel(delay) ?? 1) > 0) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'a batch cannot have a delay level');
  }
  const topicCheck = checkTopic(batch.topic);
  if (isRefusal(topicCheck)) return topicCheck;
  const body = batch.body;
  if (body.length > limits.maxMessageSize) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `batch body of ${body.length} bytes exceeds maxMessageSize ${limits.maxMessageSize}`,
    );
  }
  const batchProperties = Buffer.from(batch.propertiesString, 'utf8');
  if (batchProperties.length > MAX_PROPERTIES_LENGTH) {
    return refuse(
      PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      `batch properties of ${batchProperties.length} bytes exceed ${MAX_PROPERTIES_LENGTH}`,
    );
  }
  const sysFlag = hostSysFlag(batch.sysFlag, batch.bornHost, batch.storeHost);
  const rows: number[] = [];
  const propertiesStrings: string[] = [];
  const tagsCodes: bigint[] = [];
  let total = 0;
  let p = 0;
  while (p < body.length) {
    const start = p;
    if (body.length - p < 20) {
      return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `batch entry at ${start} is truncated`);
    }
    const flag = body.readInt32BE(p + 12);
    const bodyLength = body.readInt32BE(p + 16);
    p += 20;
    if (bodyLength < 0 || bodyLength > body.length - p) {
      return refuse(
        PutMessageStatus.MESSAGE_ILLEGAL,
        `batch entry at ${start}: BODY length ${bodyLength} does not fit`,
      );
    }
    const bodyStart = p;
    p += bodyLength;
    if (body.length - p < 2) {
      return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `batch entry at ${start}: PROPERTIES length missing`);
    }
    const ownLength = body.readInt16BE(p);
    p += 2;
    if (ownLength < 0 || ownLength > body.length - p) {
      return refuse(
        PutMessageStatus.MESSAGE_ILLEGAL,
        `batch entry at ${start}: PROPERTIES length ${ownLength} does not fit`,
      );
    }
    const propsStart = p;
    p += ownLength;
    const needSeparator =
      ownLength > 0 &&
      batchProperties.length > 0 &&
      body[propsStart + ownLength - 1] !== PROPERTY_SEPARATOR_BYTE;
    const storedLength = ownLength + batchProperties.length + (needSeparator ? 1 : 0);
    if (storedLength > MAX_PROPERTIES_LENGTH) {
      return refuse(
        PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
        `batch entry at ${start}: properties of ${storedLength} bytes exceed ${MAX_PROPERTIES_LENGTH}`,
      );
    }
    let properties = body.toString('utf8', propsStart, propsStart + ownLength);
    if (needSeparator) properties += PROPERTY_SEPARATOR;
    if (batchProperties.length > 0) properties += batch.propertiesString;
    if (properties.length > 0 && properties.charCodeAt(properties.length - 1) === 0) {
      return refuse(
        PutMessageStatus.MESSAGE_ILLEGAL,
        `batch entry at ${start}: properties end with a NUL character`,
      );
    }
    const size = storedRecordSize(sysFlag, bodyLength, topicCheck.length, storedLength);
    const sizeRefusal = checkRecordSize(size, bodyLength, limits);
    if (sizeRefusal !== undefined) return sizeRefusal;
    rows.push(
      flag,
      bodyStart,
      bodyLength,
      propsStart,
      ownLength,
      messageBodyCrc(body, bodyStart, bodyStart + bodyLength),
      size,
      needSeparator ? 1 : 0,
    );
    propertiesStrings.push(properties);
    tagsCodes.push(tagsString2tagsCode(getProperty(properties, MessageConst.PROPERTY_TAGS)));
    total += size;
  }
  const count = propertiesStrings.length;
  if (count === 0) return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'batch has no message');
  if (total + END_FILE_MIN_BLANK_LENGTH > limits.mappedFileSize) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `batch of ${total} bytes does not fit a commit log file of ${limits.mappedFileSize} bytes`,
    );
  }
  return new PreparedBatch(
    batch.topic,
    topicCheck.length,
    batch.queueId,
    sysFlag,
    batch.bornTimestamp,
    hostBytes(batch.bornHost, 'born host'),
    hostBytes(batch.storeHost, 'store host'),
    batch.storeHost,
    batch.reconsumeTimes | 0,
    body,
    batchProperties,
    Int32Array.from(rows),
    propertiesStrings,
    tagsCodes,
    count,
    total,
    batch.waitStoreMsgOK !== false,
  );
}

export function batchEntry(batch: PreparedBatch, index: number, field: number): number {
  return batch.entries[index * ENTRY_FIELDS + field] ?? 0;
}

export const BatchEntryField = {
  FLAG: 0,
  BODY_START: 1,
  BODY_LENGTH: 2,
  PROPS_START: 3,
  PROPS_LENGTH: 4,
  CRC: 5,
  SIZE: 6,
  SEPARATOR: 7,
} as const;

/**
 * Big-endian int32 by plain byte stores: Buffer.writeInt32BE re-checks range and bounds on every call,
 * which is a large share of encoding a record; here the buffer was sized for the record beforehand.
 */
function w32(buf: Buffer, pos: number, value: number): void {
  buf[pos] = value >>> 24;
  buf[pos + 1] = value >>> 16;
  buf[pos + 2] = value >>> 8;
  buf[pos + 3] = value;
}

/** Writes a non-negative safe integer as a big-endian int64 without a BigInt. */
export function writeInt64(buf: Buffer, value: number, pos: number): number {
  w32(buf, pos, Math.floor(value / TWO_32));
  w32(buf, pos + 4, value >>> 0);
  return pos + 8;
}

/**
 * Writes `text` of `byteLength` UTF-8 bytes. A string whose UTF-8 length equals its length is ASCII,
 * and then latin1 gives the same bytes with a cheaper encoder.
 */
function writeText(buf: Buffer, text: string, pos: number, byteLength: number): number {
  return buf.write(text, pos, byteLength, byteLength === text.length ? 'latin1' : 'utf8');
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** writeBigInt64BE, taking the cheaper number path for the usual non-negative values. */
function writeLong(buf: Buffer, value: bigint, pos: number): void {
  if (value >= 0n && value <= MAX_SAFE) writeInt64(buf, Number(value), pos);
  else buf.writeBigInt64BE(value, pos);
}

/** Fields 1..15 (through BODYLEN); returns the position of the body. */
function writeHeader(
  buf: Buffer,
  pos: number,
  size: number,
  bodyCRC: number,
  queueId: number,
  flag: number,
  queueOffset: number,
  physicalOffset: number,
  sysFlag: number,
  bornTimestamp: bigint,
  bornHost: Buffer,
  storeTimestamp: number,
  storeHost: Buffer,
  reconsumeTimes: number,
  preparedTransactionOffset: bigint,
  bodyLength: number,
): number {
  w32(buf, pos, size);
  w32(buf, pos + 4, MESSAGE_MAGIC_CODE);
  w32(buf, pos + 8, bodyCRC);
  w32(buf, pos + 12, queueId);
  w32(buf, pos + 16, flag);
  writeInt64(buf, queueOffset, pos + 20);
  writeInt64(buf, physicalOffset, pos + 28);
  w32(buf, pos + 36, sysFlag);
  writeLong(buf, bornTimestamp, pos + 40);
  pos += 48;
  pos += bornHost.copy(buf, pos);
  pos = writeInt64(buf, storeTimestamp, pos);
  pos += storeHost.copy(buf, pos);
  w32(buf, pos, reconsumeTimes);
  writeLong(buf, preparedTransactionOffset, pos + 4);
  w32(buf, pos + 12, bodyLength);
  return pos + 16;
}

/** Encodes a prepared message at `pos` of `buf`; returns the position after it. */
export function encodeMessage(
  buf: Buffer,
  pos: number,
  m: PreparedMessage,
  queueOffset: number,
  physicalOffset: number,
  storeTimestamp: number,
): number {
  pos = writeHeader(
    buf,
    pos,
    m.size,
    m.bodyCRC,
    m.queueId,
    m.flag,
    queueOffset,
    physicalOffset,
    m.sysFlag,
    m.bornTimestamp,
    m.bornHostBytes,
    storeTimestamp,
    m.storeHostBytes,
    m.reconsumeTimes,
    m.preparedTransactionOffset,
    m.body.length,
  );
  pos += m.body.copy(buf, pos);
  buf[pos++] = m.topicLength;
  pos += writeText(buf, m.topic, pos, m.topicLength);
  buf[pos] = m.propertiesLength >>> 8;
  buf[pos + 1] = m.propertiesLength;
  pos += 2;
  if (m.propertiesLength > 0) pos += writeText(buf, m.propertiesString, pos, m.propertiesLength);
  return pos;
}

/** Encodes every record of a prepared batch with consecutive queue offsets; returns the end position. */
export function encodeBatch(
  buf: Buffer,
  pos: number,
  b: PreparedBatch,
  firstQueueOffset: number,
  physicalOffset: number,
  storeTimestamp: number,
): number {
  const start = pos;
  for (let i = 0; i < b.count; i++) {
    const size = batchEntry(b, i, BatchEntryField.SIZE);
    const bodyStart = batchEntry(b, i, BatchEntryField.BODY_START);
    const bodyLength = batchEntry(b, i, BatchEntryField.BODY_LENGTH);
    const propsStart = batchEntry(b, i, BatchEntryField.PROPS_START);
    const ownLength = batchEntry(b, i, BatchEntryField.PROPS_LENGTH);
    const separator = batchEntry(b, i, BatchEntryField.SEPARATOR) === 1;
    pos = writeHeader(
      buf,
      pos,
      size,
      batchEntry(b, i, BatchEntryField.CRC),
      b.queueId,
      batchEntry(b, i, BatchEntryField.FLAG),
      firstQueueOffset + i,
      physicalOffset + (pos - start),
      b.sysFlag,
      b.bornTimestamp,
      b.bornHostBytes,
      storeTimestamp,
      b.storeHostBytes,
      b.reconsumeTimes,
      0n,
      bodyLength,
    );
    pos += b.body.copy(buf, pos, bodyStart, bodyStart + bodyLength);
    buf[pos++] = b.topicLength;
    pos += writeText(buf, b.topic, pos, b.topicLength);
    const storedLength = ownLength + b.batchProperties.length + (separator ? 1 : 0);
    buf[pos] = storedLength >>> 8;
    buf[pos + 1] = storedLength;
    pos += 2;
    pos += b.body.copy(buf, pos, propsStart, propsStart + ownLength);
    if (separator) buf[pos++] = PROPERTY_SEPARATOR_BYTE;
    pos += b.batchProperties.copy(buf, pos);
  }
  return pos;
}

/** The end-of-file filler: TOTALSIZE = the rest of the file, BLANK magic; the rest stays unwritten. */
export function encodeBlank(buf: Buffer, pos: number, remaining: number): number {
  w32(buf, pos, remaining);
  w32(buf, pos + 4, BLANK_MAGIC_CODE);
  return pos + END_FILE_MIN_BLANK_LENGTH;
}
