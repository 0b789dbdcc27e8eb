/**
 * A SEND_BATCH_MESSAGE body turned into stored records (upstream `MessageExtBatchEncoder` and the
 * batch branch of `DefaultAppendMessageCallback.doAppend`). `prepareBatch` walks the body once when
 * the append is requested: it checks every entry, computes its body CRC, record size and tag hash,
 * and notes where its KEYS and UNIQ_KEY values lie, without decoding any properties. `encodeBatch`
 * writes the records at their final offsets. The stored bytes of a record are the entry's own
 * properties, a separator when they do not end in one, then the batch's properties, as upstream.
 */

import { javaStringHashCode } from '../common/java-hash.js';
import { messageBodyCrcOfView } from '../common/message/crc32.js';
import type { HostAddress } from '../common/message/host.js';
import { MESSAGE_MAGIC_CODE } from '../common/message/message.js';
import { MessageConst, PROPERTY_SEPARATOR } from '../common/message/message-const.js';
import { storedRecordSize } from '../common/message/stored-format.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
import { parseDelayLevel } from './delay-level.js';
import { getProperty, type RecordProperties } from './dispatch-request.js';
import { PutMessageStatus } from './put-message-result.js';
import {
  asciiJavaHash,
  continueJavaHash,
  findStoreProperties,
  STORE_PROPERTY_SLOTS,
  StoreProperty,
} from './record-properties.js';
import {
  checkRecordSize,
  END_FILE_MIN_BLANK_LENGTH,
  hostBytes,
  hostSysFlag,
  isRefusal,
  MAX_PROPERTIES_LENGTH,
  type MessageExtBatch,
  type PrepareLimits,
  putBytes,
  type Refusal,
  refuse,
  setLong,
  topicBytesOf,
  type WriteBuffer,
  writeHeader,
} from './stored-record-writer.js';

const PROPERTY_SEPARATOR_BYTE = 2;

/** Per message fields of PreparedBatch.entries. */
export const BatchEntryField = {
  FLAG: 0,
  BODY_START: 1,
  BODY_LENGTH: 2,
  PROPS_START: 3,
  PROPS_LENGTH: 4,
  CRC: 5,
  SIZE: 6,
  /** 1 when a separator goes between the message's own properties and the batch's. */
  SEPARATOR: 7,
  /** The TAGS hash (an int32; the consume queue stores it sign-extended), 0 without TAGS. */
  TAGS_CODE: 8,
  /** Byte range of the own KEYS value in the body, -1 when there is none. */
  KEYS_START: 9,
  KEYS_END: 10,
  /** Byte range of the own UNIQ_KEY value in the body, -1 when there is none. */
  UNIQ_START: 11,
  UNIQ_END: 12,
} as const;
const ENTRY_FIELDS = 13;

/** A checked batch: every message's place in the batch body plus what its record needs. */
export class PreparedBatch implements RecordProperties {
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
    /** The batch's properties, stored after every message's own. */
    readonly batchProperties: Buffer,
    readonly batchPropertiesString: string,
    /** KEYS and UNIQ_KEY of the batch's properties: they win over a message's own (they come later). */
    readonly batchKeys: string | undefined,
    readonly batchUniqKey: string | undefined,
    /** ENTRY_FIELDS per message (BatchEntryField). */
    readonly entries: Int32Array,
    readonly count: number,
    readonly size: number,
    readonly waitStoreMsgOK: boolean,
    /** A DataView of `body`, which encodeBatch copies from. */
    readonly bodyView: DataView,
    /** A DataView of `batchProperties`. */
    readonly batchPropertiesView: DataView,
  ) {}

  entry(index: number, field: number): number {
    return this.entries[index * ENTRY_FIELDS + field] ?? 0;
  }

  /** Properties of message `index` as stored. */
  propertiesOf(index: number): string {
    const start = this.entry(index, BatchEntryField.PROPS_START);
    let text = this.body.toString('utf8', start, start + this.entry(index, BatchEntryField.PROPS_LENGTH));
    if (this.entry(index, BatchEntryField.SEPARATOR) === 1) text += PROPERTY_SEPARATOR;
    return this.batchProperties.length > 0 ? text + this.batchPropertiesString : text;
  }

  keysOf(index: number): string {
    if (this.batchKeys !== undefined) return this.batchKeys;
    const start = this.entry(index, BatchEntryField.KEYS_START);
    return start < 0 ? '' : this.body.toString('utf8', start, this.entry(index, BatchEntryField.KEYS_END));
  }

  uniqKeyOf(index: number): string | undefined {
    if (this.batchUniqKey !== undefined) return this.batchUniqKey;
    const start = this.entry(index, BatchEntryField.UNIQ_START);
    return start < 0
      ? undefined
      : this.body.toString('utf8', start, this.entry(index, BatchEntryField.UNIQ_END));
  }

  /**
   * Java's hashCode of a text that ends with message `index`'s UNIQ_KEY, continued from `seed` (the
   * hash of the text before it: `topic#` for an index key); undefined without a UNIQ_KEY.
   */
  uniqKeyHash(index: number, seed: number): number | undefined {
    if (this.batchUniqKey !== undefined) return continueJavaHash(this.batchUniqKey, seed);
    const start = this.entry(index, BatchEntryField.UNIQ_START);
    if (start < 0) return undefined;
    const end = this.entry(index, BatchEntryField.UNIQ_END);
    return (
      asciiJavaHash(this.body, start, end, seed) ??
      continueJavaHash(this.body.toString('utf8', start, end), seed)
    );
  }
}

/** The tag hash of a TAGS value in `buf[start, end)`; as tagsString2tagsCode, but an int32. */
function tagsHashOf(buf: Buffer, start: number, end: number): number {
  return asciiJavaHash(buf, start, end, 0) ?? javaStringHashCode(buf.toString('utf8', start, end));
}

// A producer sends the same batch properties with every batch (WAIT, and the CLUSTER the broker
// adds): their bytes and view are kept for the last string seen. Neither is ever written to.
let lastBatchProperties = '';
let lastBatchPropertiesBytes = Buffer.alloc(0);
let batchPropertiesView = new DataView(lastBatchPropertiesBytes.buffer, 0, 0);

function batchPropertiesBytes(text: string): Buffer {
  if (text !== lastBatchProperties) {
    lastBatchPropertiesBytes = Buffer.from(text, 'utf8');
    batchPropertiesView = new DataView(
      lastBatchPropertiesBytes.buffer,
      lastBatchPropertiesBytes.byteOffset,
      lastBatchPropertiesBytes.length,
    );
    lastBatchProperties = text;
  }
  return lastBatchPropertiesBytes;
}

/** The rows of the batch being prepared (copied out at the end), grown as needed. */
let rows = new Int32Array(ENTRY_FIELDS * 256);
const found = new Int32Array(STORE_PROPERTY_SLOTS);

/** Checks a batch as DefaultMessageStore.checkMessages, asyncPutMessages and the batch encoder do. */
export function prepareBatch(batch: MessageExtBatch, limits: PrepareLimits): PreparedBatch | Refusal {
  if (getTransactionValue(batch.sysFlag) !== MessageSysFlag.TRANSACTION_NOT_TYPE) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'a batch cannot be transactional');
  }
  const batchPropertiesString = batch.propertiesString;
  const delay = getProperty(batchPropertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  if (delay !== undefined && (parseDelayLevel(delay) ?? 1) > 0) {
    return refuse(PutMessageStatus.MESSAGE_ILLEGAL, 'a batch cannot have a delay level');
  }
  const topicBytes = topicBytesOf(batch.topic);
  if (isRefusal(topicBytes)) return topicBytes;
  const body = batch.body;
  const bodyView = new DataView(body.buffer, body.byteOffset, body.length);
  if (body.length > limits.maxMessageSize) {
    return refuse(
      PutMessageStatus.MESSAGE_ILLEGAL,
      `batch body of ${body.length} bytes exceeds maxMessageSize ${limits.maxMessageSize}`,
    );
  }
  const batchProperties = batchPropertiesBytes(batchPropertiesString);
  const batchLength = batchProperties.length;
  if (batchLength > MAX_PROPERTIES_LENGTH) {
    return refuse(
      PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      `batch properties of ${batchLength} bytes exceed ${MAX_PROPERTIES_LENGTH}`,
    );
  }
  // What the batch's properties say wins over every message's own: they are stored after them.
  let batchTags: string | undefined;
  let batchKeys: string | undefined;
  let batchUniqKey: string | undefined;
  if (batchLength > 0) {
    batchTags = getProperty(batchPropertiesString, MessageConst.PROPERTY_TAGS);
    batchKeys = getProperty(batchPropertiesString, MessageConst.PROPERTY_KEYS);
    batchUniqKey = getProperty(batchPropertiesString, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
  }
  const batchTagsCode = batchTags === undefined ? undefined : javaStringHashCode(batchTags);
  const batchEndsInNul = batchLength > 0 && batchProperties[batchLength - 1] === 0;
  const bornHostBytes = hostBytes(batch.bornHost, 'born host');
  const storeHostBytes = hostBytes(batch.storeHost, 'store host');
  const sysFlag = hostSysFlag(batch.sysFlag, bornHostBytes, storeHostBytes);
  let count = 0;
  let total = 0;
  let p = 0;
  while (p < body.length) {
    const start = p;
    if (body.length - p < 20) {
      return refuse(PutMessageStatus.MESSAGE_ILLEGAL, `batch entry at ${start} is truncated`);
    }
    const flag = bodyView.getInt32(p + 12);
    const bodyLength = bodyView.getInt32(p + 16);
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
    const ownLength = bodyView.getInt16(p);
    p += 2;
    if (ownLength < 0 || ownLength > body.length - p) {
      return refuse(
        PutMessageStatus.MESSAGE_ILLEGAL,
        `batch entry at ${start}: PROPERTIES length ${ownLength} does not fit`,
      );
    }
    const propsStart = p;
    const propsEnd = p + ownLength;
    p = propsEnd;
    const needSeparator = ownLength > 0 && batchLength > 0 && body[propsEnd - 1] !== PROPERTY_SEPARATOR_BYTE;
    const storedLength = ownLength + batchLength + (needSeparator ? 1 : 0);
    if (storedLength > MAX_PROPERTIES_LENGTH) {
      return refuse(
        PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
        `batch entry at ${start}: properties of ${storedLength} bytes exceed ${MAX_PROPERTIES_LENGTH}`,
      );
    }
    // Recovery takes properties ending in NUL for a torn record (see stored-record-reader).
    if (batchLength > 0 ? batchEndsInNul : ownLength > 0 && body[propsEnd - 1] === 0) {
      return refuse(
        PutMessageStatus.MESSAGE_ILLEGAL,
        `batch entry at ${start}: properties end with a NUL character`,
      );
    }
    const size = storedRecordSize(sysFlag, bodyLength, topicBytes.length, storedLength);
    const sizeRefusal = checkRecordSize(size, bodyLength, limits);
    if (sizeRefusal !== undefined) return sizeRefusal;
    const at = count * ENTRY_FIELDS;
    if (at + ENTRY_FIELDS > rows.length) {
      const grown = new Int32Array(rows.length * 2);
      grown.set(rows);
      rows = grown;
    }
    rows[at + BatchEntryField.FLAG] = flag;
    rows[at + BatchEntryField.BODY_START] = bodyStart;
    rows[at + BatchEntryField.BODY_LENGTH] = bodyLength;
    rows[at + BatchEntryField.PROPS_START] = propsStart;
    rows[at + BatchEntryField.PROPS_LENGTH] = ownLength;
    rows[at + BatchEntryField.CRC] = messageBodyCrcOfView(bodyView, bodyStart, bodyStart + bodyLength);
    rows[at + BatchEntryField.SIZE] = size;
    rows[at + BatchEntryField.SEPARATOR] = needSeparator ? 1 : 0;
    findStoreProperties(bodyView, propsStart, propsEnd, found, 0);
    const tagsStart = found[2 * StoreProperty.TAGS] as number;
    rows[at + BatchEntryField.TAGS_CODE] =
      batchTagsCode ??
      (tagsStart < 0 ? 0 : tagsHashOf(body, tagsStart, found[2 * StoreProperty.TAGS + 1] as number));
    rows[at + BatchEntryField.KEYS_START] = found[2 * StoreProperty.KEYS] as number;
    rows[at + BatchEntryField.KEYS_END] = found[2 * StoreProperty.KEYS + 1] as number;
    rows[at + BatchEntryField.UNIQ_START] = found[2 * StoreProperty.UNIQ_KEY] as number;
    rows[at + BatchEntryField.UNIQ_END] = found[2 * StoreProperty.UNIQ_KEY + 1] as number;
    count++;
    total += size;
  }
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
    batchPropertiesString,
    batchKeys,
    batchUniqKey,
    rows.slice(0, count * ENTRY_FIELDS),
    count,
    total,
    batch.waitStoreMsgOK !== false,
    bodyView,
    batchPropertiesView,
  );
}

/**
 * Up to this many bytes are copied four at a time through DataViews: Buffer#copy's checks and the
 * view it builds cost more than the copy of a small body or properties string.
 */
const WORD_COPY_MAX = 192;

function copyBytes(src: DataView, start: number, end: number, dst: DataView, pos: number): number {
  const n = end - start;
  if (n > WORD_COPY_MAX) {
    new Uint8Array(dst.buffer, dst.byteOffset + pos, n).set(
      new Uint8Array(src.buffer, src.byteOffset + start, n),
    );
    return pos + n;
  }
  let i = 0;
  for (; i + 4 <= n; i += 4) dst.setInt32(pos + i, src.getInt32(start + i));
  for (; i < n; i++) dst.setUint8(pos + i, src.getUint8(start + i));
  return pos + n;
}

/** Header bytes from SYSFLAG (at 36) up to BODYLEN: the same in every record of a batch. */
const SYSFLAG_POSITION = 36;

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
  const view = out.view;
  const body = b.bodyView;
  const batchProperties = b.batchPropertiesView;
  const batchLength = batchProperties.byteLength;
  const entries = b.entries;
  const start = pos;
  // The first record's header is written field by field; the others copy its constant part.
  let shared = 0;
  let sharedEnd = 0;
  for (let i = 0, at = 0; i < b.count; i++, at += ENTRY_FIELDS) {
    const bodyStart = entries[at + BatchEntryField.BODY_START] as number;
    const bodyLength = entries[at + BatchEntryField.BODY_LENGTH] as number;
    const propsStart = entries[at + BatchEntryField.PROPS_START] as number;
    const ownLength = entries[at + BatchEntryField.PROPS_LENGTH] as number;
    const separator = entries[at + BatchEntryField.SEPARATOR] === 1;
    if (i === 0) {
      pos = writeHeader(
        out,
        pos,
        entries[at + BatchEntryField.SIZE] as number,
        entries[at + BatchEntryField.CRC] as number,
        b.queueId,
        entries[at + BatchEntryField.FLAG] as number,
        firstQueueOffset,
        physicalOffset,
        b.sysFlag,
        b.bornTimestamp,
        b.bornHostBytes,
        storeTimestamp,
        b.storeHostBytes,
        b.reconsumeTimes,
        0n,
        bodyLength,
      );
      shared = start + SYSFLAG_POSITION;
      sharedEnd = pos - 4;
    } else {
      view.setInt32(pos, entries[at + BatchEntryField.SIZE] as number);
      view.setInt32(pos + 4, MESSAGE_MAGIC_CODE);
      view.setInt32(pos + 8, entries[at + BatchEntryField.CRC] as number);
      view.setInt32(pos + 12, b.queueId);
      view.setInt32(pos + 16, entries[at + BatchEntryField.FLAG] as number);
      setLong(view, pos + 20, firstQueueOffset + i);
      setLong(view, pos + 28, physicalOffset + (pos - start));
      pos = copyBytes(view, shared, sharedEnd, view, pos + SYSFLAG_POSITION);
      view.setInt32(pos, bodyLength);
      pos += 4;
    }
    pos = copyBytes(body, bodyStart, bodyStart + bodyLength, view, pos);
    buf[pos++] = b.topicBytes.length;
    pos = putBytes(buf, pos, b.topicBytes);
    const storedLength = ownLength + batchLength + (separator ? 1 : 0);
    buf[pos] = storedLength >>> 8;
    buf[pos + 1] = storedLength;
    pos += 2;
    pos = copyBytes(body, propsStart, propsStart + ownLength, view, pos);
    if (separator) buf[pos++] = PROPERTY_SEPARATOR_BYTE;
    pos = copyBytes(batchProperties, 0, batchLength, view, pos);
  }
  return pos;
}
