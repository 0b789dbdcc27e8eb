/**
 * Turns what the broker hands to the store into stored-format records (upstream `MessageExtEncoder` and
 * `DefaultAppendMessageCallback.doAppend`). `prepare*` runs when the append is requested: it checks the
 * sizes, computes the body CRC and the record length, and applies the delay-level rewrite. `encode*`
 * runs when the turn's write is assembled: it writes the record straight into the write buffer with the
 * queue offset, physical offset and store timestamp of that moment, so nothing is encoded twice.
 * A batch's records are prepared and encoded in prepared-batch.ts, with the helpers exported here.
 */

import { messageBodyCrc } from '../common/message/crc32.js';
import { type HostAddress, hostToBytes } from '../common/message/host.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE } from '../common/message/message.js';
import { MessageConst, NAME_VALUE_SEPARATOR } from '../common/message/message-const.js';
import { messageProperties2String, string2messageProperties } from '../common/message/properties.js';
import { storedRecordSize } from '../common/message/stored-format.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
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
  /**
   * The delay level the store acts on (upstream's `getDelayTimeLevel()`, read from the property map,
   * which may differ from `propertiesString`): > 0 rewrites the message to SCHEDULE_TOPIC_XXXX, 0 or
   * less stores it as it is whatever DELAY the properties carry. Absent: the DELAY property decides.
   */
  delayTimeLevel?: number;
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
export const MAX_PROPERTIES_LENGTH = 32767;
/** Upstream reserves 64 KiB beyond the largest body for the rest of a record. */
const RECORD_OVERHEAD_RESERVE = 64 * 1024;
const DELAY_PREFIX = `${MessageConst.PROPERTY_DELAY_TIME_LEVEL}${NAME_VALUE_SEPARATOR}`;
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

export function refuse(status: PutMessageStatus, reason: string): Refusal {
  return { status, reason };
}

const hostBytesCache = new WeakMap<HostAddress, Buffer>();
// The broker hands the same born-host object for every message of a connection and one store-host
// object for all: two remembered hosts answer nearly every lookup without the WeakMap.
let memoHostA: HostAddress | undefined;
let memoBytesA: Buffer | undefined;
let memoHostB: HostAddress | undefined;
let memoBytesB: Buffer | undefined;

export function hostBytes(host: HostAddress, what: string): Buffer {
  if (host === memoHostA && memoBytesA !== undefined) return memoBytesA;
  if (host === memoHostB && memoBytesB !== undefined) return memoBytesB;
  let bytes = hostBytesCache.get(host);
  if (bytes === undefined) {
    bytes = hostToBytes(host, what);
    hostBytesCache.set(host, bytes);
  }
  memoHostB = memoHostA;
  memoBytesB = memoBytesA;
  memoHostA = host;
  memoBytesA = bytes;
  return bytes;
}

export function hostSysFlag(sysFlag: number, bornHost: Buffer, storeHost: Buffer): number {
  let flag = sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (bornHost.length === 20) flag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (storeHost.length === 20) flag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  return flag;
}

/** A checked single message, ready to be encoded at its final offsets. */
export class PreparedMessage {
  readonly kind = 0;
  constructor(
    readonly topic: string,
    /** The topic's UTF-8 bytes (shared by every message of the topic: see topicBytesOf). */
    readonly topicBytes: Buffer,
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

/** Topics checked before, with their UTF-8 bytes; cleared when full (a bound, not an eviction policy). */
const topicCache = new Map<string, Buffer>();
const TOPIC_CACHE_MAX = 4096;

/** The topic's UTF-8 bytes once it passed the checks, or why it is refused. */
export function topicBytesOf(topic: string): Buffer | Refusal {
  const cached = topicCache.get(topic);
  if (cached !== undefined) return cached;
  const length = Buffer.byteLength(topic, 'utf8');
  if (length === 0) return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'topic is empty');
  if (length > MAX_TOPIC_BYTES) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `topic of ${length} bytes exceeds ${MAX_TOPIC_BYTES}`);
  }
  // Recovery takes a NUL inside a topic for a torn record; no valid topic name has one.
  if (topic.includes('\u0000'))
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'topic contains a NUL character');
  const bytes = Buffer.from(topic, 'utf8');
  if (topicCache.size >= TOPIC_CACHE_MAX) topicCache.clear();
  topicCache.set(topic, bytes);
  return bytes;
}

export function checkRecordSize(
  size: number,
  bodyLength: number,
  limits: PrepareLimits,
): Refusal | undefined {
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
  let topicBytes = topicBytesOf(topic);
  if (isRefusal(topicBytes)) return topicBytes;
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
    let level = inner.delayTimeLevel;
    // One native search rules the property out for nearly every message.
    if (level === undefined && properties.includes(DELAY_PREFIX)) {
      const delay = getProperty(properties, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
      if (delay !== undefined) {
        level = parseDelayLevel(delay);
        if (level === undefined) {
          return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `DELAY property "${delay}" is not an int`);
        }
      }
    }
    if (level !== undefined && level > 0) {
      delayLevel = Math.min(level, limits.delayLevels.maxDelayLevel);
      const map = string2messageProperties(properties);
      map.set(MessageConst.PROPERTY_DELAY_TIME_LEVEL, String(delayLevel));
      map.set(MessageConst.PROPERTY_REAL_TOPIC, topic);
      map.set(MessageConst.PROPERTY_REAL_QUEUE_ID, String(queueId));
      properties = messageProperties2String(map);
      topic = TopicValidator.RMQ_SYS_SCHEDULE_TOPIC;
      queueId = delayLevel2QueueId(delayLevel);
      topicBytes = topicBytesOf(topic);
      if (isRefusal(topicBytes)) return topicBytes;
    }
  }
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
  const bornHostBytes = hostBytes(inner.bornHost, 'born host');
  const storeHostBytes = hostBytes(inner.storeHost, 'store host');
  const sysFlag = hostSysFlag(inner.sysFlag, bornHostBytes, storeHostBytes);
  const body = inner.body;
  const size = storedRecordSize(sysFlag, body.length, topicBytes.length, propertiesLength);
  const sizeRefusal = checkRecordSize(size, body.length, limits);
  if (sizeRefusal !== undefined) return sizeRefusal;
  return new PreparedMessage(
    topic,
    topicBytes,
    queueId,
    inner.flag | 0,
    body,
    messageBodyCrc(body),
    properties,
    propertiesLength,
    sysFlag,
    inner.bornTimestamp,
    bornHostBytes,
    storeHostBytes,
    inner.storeHost,
    inner.reconsumeTimes | 0,
    inner.preparedTransactionOffset,
    inner.tagsCode,
    delayLevel,
    size,
    inner.waitStoreMsgOK !== false,
  );
}

/**
 * The turn's write buffer with a DataView over the same bytes: DataView stores of int32 and int64 are
 * plain machine stores once optimised, where Buffer.write*BE re-check their arguments on every call.
 */
export class WriteBuffer {
  readonly bytes: Buffer;
  readonly view: DataView;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafe(size);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
  }
}

/** A non-negative safe integer as a big-endian int64, without a BigInt. */
export function setLong(view: DataView, pos: number, value: number): void {
  view.setInt32(pos, Math.floor(value / TWO_32));
  view.setInt32(pos + 4, value | 0);
}

/** Short byte strings (hosts, topics) by a loop: cheaper than a native copy call at these sizes. */
export function putBytes(buf: Buffer, pos: number, bytes: Buffer): number {
  const n = bytes.length;
  for (let i = 0; i < n; i++) buf[pos + i] = bytes[i]!;
  return pos + n;
}

type TextWriters = Buffer & {
  latin1Write(text: string, offset: number, length: number): number;
  utf8Write(text: string, offset: number, length: number): number;
};
// Buffer.write looks the encoding up on each call; the per-encoding writers it dispatches to are
// on every Buffer of Node 16 and later, and used when present.
const directTextWrites =
  typeof (Buffer.prototype as Partial<TextWriters>).latin1Write === 'function' &&
  typeof (Buffer.prototype as Partial<TextWriters>).utf8Write === 'function';

/**
 * Writes `text` of `byteLength` UTF-8 bytes. A string whose UTF-8 length equals its length is ASCII,
 * and then latin1 gives the same bytes with a cheaper encoder.
 */
function writeText(buf: Buffer, text: string, pos: number, byteLength: number): number {
  const ascii = byteLength === text.length;
  if (directTextWrites) {
    const w = buf as TextWriters;
    return ascii ? w.latin1Write(text, pos, byteLength) : w.utf8Write(text, pos, byteLength);
  }
  return buf.write(text, pos, byteLength, ascii ? 'latin1' : 'utf8');
}

/** Fields 1..15 (through BODYLEN); returns the position of the body. */
export function writeHeader(
  out: WriteBuffer,
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
  const view = out.view;
  view.setInt32(pos, size);
  view.setInt32(pos + 4, MESSAGE_MAGIC_CODE);
  view.setInt32(pos + 8, bodyCRC);
  view.setInt32(pos + 12, queueId);
  view.setInt32(pos + 16, flag);
  setLong(view, pos + 20, queueOffset);
  setLong(view, pos + 28, physicalOffset);
  view.setInt32(pos + 36, sysFlag);
  view.setBigInt64(pos + 40, bornTimestamp);
  pos = putBytes(out.bytes, pos + 48, bornHost);
  setLong(view, pos, storeTimestamp);
  pos = putBytes(out.bytes, pos + 8, storeHost);
  view.setInt32(pos, reconsumeTimes);
  view.setBigInt64(pos + 4, preparedTransactionOffset);
  view.setInt32(pos + 12, bodyLength);
  return pos + 16;
}

/** Encodes a prepared message at `pos` of `out`; returns the position after it. */
export function encodeMessage(
  out: WriteBuffer,
  pos: number,
  m: PreparedMessage,
  queueOffset: number,
  physicalOffset: number,
  storeTimestamp: number,
): number {
  const buf = out.bytes;
  pos = writeHeader(
    out,
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
  buf.set(m.body, pos);
  pos += m.body.length;
  buf[pos++] = m.topicBytes.length;
  pos = putBytes(buf, pos, m.topicBytes);
  buf[pos] = m.propertiesLength >>> 8;
  buf[pos + 1] = m.propertiesLength;
  pos += 2;
  if (m.propertiesLength > 0) pos += writeText(buf, m.propertiesString, pos, m.propertiesLength);
  return pos;
}

/** The end-of-file filler: TOTALSIZE = the rest of the file, BLANK magic; the rest stays unwritten. */
export function encodeBlank(out: WriteBuffer, pos: number, remaining: number): number {
  out.view.setInt32(pos, remaining);
  out.view.setInt32(pos + 4, BLANK_MAGIC_CODE);
  return pos + END_FILE_MIN_BLANK_LENGTH;
}
