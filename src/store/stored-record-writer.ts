/**
 * Turns what the broker hands to the store into stored-format records (upstream `MessageExtEncoder` and
 * `DefaultAppendMessageCallback.doAppend`). `prepare*` runs when the append is requested: it checks the
 * sizes, computes the body CRC and the record length, and applies the delay-level rewrite. `encode*`
 * runs when the turn's write is assembled: it writes the record straight into the write buffer with the
 * queue offset, physical offset and store timestamp of that moment, so nothing is encoded twice.
 */

import { messageBodyCrc } from '../common/message/crc32.js';
import { type HostAddress, hostToBytes } from '../common/message/host.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE } from '../common/message/message.js';
import { MessageConst, NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from '../common/message/message-const.js';
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
const MAX_PROPERTIES_LENGTH = 32767;
/** Upstream reserves 64 KiB beyond the largest body for the rest of a record. */
const RECORD_OVERHEAD_RESERVE = 64 * 1024;
const PROPERTY_SEPARATOR_BYTE = 2;
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

function refuse(status: PutMessageStatus, reason: string): Refusal {
  return { status, reason };
}

const hostBytesCache = new WeakMap<HostAddress, Buffer>();
// The broker hands the same born-host object for every message of a connection and one store-host
// object for all: two remembered hosts answer nearly every lookup without the WeakMap.
let memoHostA: HostAddress | undefined;
let memoBytesA: Buffer | undefined;
let memoHostB: HostAddress | undefined;
let memoBytesB: Buffer | undefined;

function hostBytes(host: HostAddress, what: string): Buffer {
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

function hostSysFlag(sysFlag: number, bornHost: Buffer, storeHost: Buffer): number {
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
function topicBytesOf(topic: string): Buffer | Refusal {
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

/** A checked batch: every message's place in the batch body plus what its record needs. */
export class PreparedBatch {
  readonly kind = 1;
  constructor(
    readonly topic: string,
    readonly topicBytes: Buffer,
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
  const topicBytes = topicBytesOf(batch.topic);
  if (isRefusal(topicBytes)) return topicBytes;
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
  const bornHostBytes = hostBytes(batch.bornHost, 'born host');
  const storeHostBytes = hostBytes(batch.storeHost, 'store host');
  const sysFlag = hostSysFlag(batch.sysFlag, bornHostBytes, storeHostBytes);
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
    const size = storedRecordSize(sysFlag, bodyLength, topicBytes.length, storedLength);
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
    topicBytes,
    batch.queueId,
    sysFlag,
    batch.bornTimestamp,
    bornHostBytes,
    storeHostBytes,
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
function setLong(view: DataView, pos: number, value: number): void {
  view.setInt32(pos, Math.floor(value / TWO_32));
  view.setInt32(pos + 4, value | 0);
}

/** Short byte strings (hosts, topics) by a loop: cheaper than a native copy call at these sizes. */
function putBytes(buf: Buffer, pos: number, bytes: Buffer): number {
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
function writeHeader(
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

/** Encodes every record of a prepared batch with consecutive queue offsets; returns the end position. */
export function encodeBatch(
  out: WriteBuffer,
  pos: number,
  b: PreparedBatch,
  firstQueueOffset: number,
  physicalOffset: number,
  storeTimestamp: number,
): number {
  const buf = out.bytes;
  const start = pos;
  for (let i = 0; i < b.count; i++) {
    const size = batchEntry(b, i, BatchEntryField.SIZE);
    const bodyStart = batchEntry(b, i, BatchEntryField.BODY_START);
    const bodyLength = batchEntry(b, i, BatchEntryField.BODY_LENGTH);
    const propsStart = batchEntry(b, i, BatchEntryField.PROPS_START);
    const ownLength = batchEntry(b, i, BatchEntryField.PROPS_LENGTH);
    const separator = batchEntry(b, i, BatchEntryField.SEPARATOR) === 1;
    pos = writeHeader(
      out,
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
    buf[pos++] = b.topicBytes.length;
    pos = putBytes(buf, pos, b.topicBytes);
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
export function encodeBlank(out: WriteBuffer, pos: number, remaining: number): number {
  out.view.setInt32(pos, remaining);
  out.view.setInt32(pos + 4, BLANK_MAGIC_CODE);
  return pos + END_FILE_MIN_BLANK_LENGTH;
}
