/**
 * Parses stored records back into DispatchRequests (upstream `CommitLog.checkMessageAndReturnSize`),
 * for recovery and for rebuilding consume queues. Stricter than upstream, so that a torn tail is never
 * taken for a message:
 * - PHYSICALOFFSET must equal the record's position, and the fields must add up to TOTALSIZE;
 * - the body CRC is checked (when asked);
 * - the topic is non-empty and has no NUL byte (a torn write leaves zeros);
 * - a record whose properties end with a NUL byte is only "suspect": the appender refuses such
 *   properties, so the caller accepts it only when a valid record follows it.
 * A BLANK record must fill its file exactly.
 */

import * as zlib from 'node:zlib';
import { messageBodyCrc } from '../common/message/crc32.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2 } from '../common/message/message.js';
import { MessageConst } from '../common/message/message-const.js';
import { MIN_STORED_RECORD_SIZE, StoredRecordPosition } from '../common/message/stored-format.js';
import { bornHostLength, storeHostLength } from '../common/message/sysflag.js';
import { tagsString2tagsCode } from '../common/message/tag-hash.js';
import { TopicValidator } from '../common/validators.js';
import { type DelayLevelTable, parseDelayLevel } from './delay-level.js';
import { DispatchRequest, getProperty } from './dispatch-request.js';
import { TIMER_TOPIC, timerTagsCode } from './timer/timer-config.js';

const TWO_32 = 4294967296;

export const RecordKind = {
  MESSAGE: 'message',
  BLANK: 'blank',
  /** TOTALSIZE and MAGICCODE both zero: never-written bytes, the normal end of the log. */
  END: 'end',
  CORRUPT: 'corrupt',
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

export interface CheckOptions {
  checkCRC: boolean;
  /**
   * Commit-log offset up to which the body CRC of every record has already been found correct (by a
   * recovery scan's worker thread, see crc-ahead.ts): records ending there or before skip the CRC.
   */
  crcValidUpTo?: number;
  /** Build the DispatchRequest (decodes topic and properties); false only validates. */
  buildRequest: boolean;
  delayLevels: DelayLevelTable;
}

/** Result of one check; reused by the scanners, so read it before the next call. */
export class CheckedRecord {
  kind: RecordKind = RecordKind.END;
  /** Bytes the record takes (messages and blanks). */
  size = 0;
  reason = '';
  /** Properties end with NUL: valid only if a valid record follows. */
  suspect = false;
  request: DispatchRequest | undefined = undefined;
  /** Set for messages even when no request is built. */
  queueId = 0;
  queueOffset = 0;
  sysFlag = 0;
  storeTimestamp = 0;
  topic = '';
  /** Bytes of `topic`: consecutive records mostly share a topic, so its string is decoded once. */
  private topicBytes = Buffer.alloc(256);
  private topicByteLength = -1;

  /** The topic at `buf[pos, pos+len)`, reusing the previous string when the bytes are the same. */
  decodeTopic(buf: Buffer, pos: number, len: number): string {
    if (len === this.topicByteLength) {
      const cached = this.topicBytes;
      let i = 0;
      while (i < len && cached[i] === buf[pos + i]) i++;
      if (i === len) return this.topic;
    }
    const topic = buf.toString('utf8', pos, pos + len);
    if (len <= this.topicBytes.length) {
      buf.copy(this.topicBytes, 0, pos, pos + len);
      this.topicByteLength = len;
    } else {
      this.topicByteLength = -1;
    }
    return topic;
  }

  private tags: string | undefined = undefined;
  private tagsCode = 0n;

  /** tagsString2tagsCode, remembering the last value: consecutive records mostly share their tags. */
  tagsCodeOf(tags: string | undefined): bigint {
    if (tags !== this.tags) {
      this.tags = tags;
      this.tagsCode = tagsString2tagsCode(tags);
    }
    return this.tagsCode;
  }

  corrupt(reason: string): CheckedRecord {
    this.kind = RecordKind.CORRUPT;
    this.reason = reason;
    this.size = 0;
    this.request = undefined;
    return this;
  }
}

// Plain byte arithmetic: the caller has checked the bounds, and this path runs once per stored record.
function i32(buf: Buffer, pos: number): number {
  return (buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]! | 0;
}

function i16(buf: Buffer, pos: number): number {
  return (((buf[pos]! << 8) | buf[pos + 1]!) << 16) >> 16;
}

function readInt64Number(buf: Buffer, pos: number): number {
  return i32(buf, pos) * TWO_32 + (i32(buf, pos + 4) >>> 0);
}

/**
 * Checks the record at `buf[pos]`, which lies at commit-log offset `physicalOffset` with
 * `fileRemaining` bytes of its file from there. `buf` must hold the whole record (`available` bytes
 * from pos); when it does not, the result is CORRUPT with reason starting "need " and `size` set to
 * the bytes needed, so a scanner can read more and retry.
 */
export function checkMessageAndReturnSize(
  buf: Buffer,
  pos: number,
  available: number,
  physicalOffset: number,
  fileRemaining: number,
  options: CheckOptions,
  out: CheckedRecord = new CheckedRecord(),
): CheckedRecord {
  out.suspect = false;
  out.request = undefined;
  out.reason = '';
  if (fileRemaining < 8 || available < 8) {
    if (available < 8 && fileRemaining >= 8) return needMore(out, 8);
    return out.corrupt(`${fileRemaining} bytes left in the file, fewer than a record header`);
  }
  const totalSize = i32(buf, pos);
  const magic = i32(buf, pos + 4);
  if (magic === BLANK_MAGIC_CODE) {
    if (totalSize !== fileRemaining) {
      return out.corrupt(
        `BLANK record with TOTALSIZE ${totalSize}, but ${fileRemaining} bytes are left in the file`,
      );
    }
    out.kind = RecordKind.BLANK;
    out.size = totalSize;
    return out;
  }
  if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) {
    if (magic === 0 && totalSize === 0) {
      out.kind = RecordKind.END;
      out.size = 0;
      return out;
    }
    return out.corrupt(`illegal MAGICCODE 0x${(magic >>> 0).toString(16)}`);
  }
  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  if (totalSize < MIN_STORED_RECORD_SIZE + (v2 ? 1 : 0) || totalSize > fileRemaining) {
    return out.corrupt(`TOTALSIZE ${totalSize} does not fit the ${fileRemaining} bytes left in the file`);
  }
  if (available < totalSize) return needMore(out, totalSize);
  const stored = readInt64Number(buf, pos + StoredRecordPosition.PHYSICAL_OFFSET);
  if (stored !== physicalOffset) {
    return out.corrupt(`PHYSICALOFFSET ${stored} differs from the record's position ${physicalOffset}`);
  }
  const end = pos + totalSize;
  const sysFlag = i32(buf, pos + StoredRecordPosition.SYS_FLAG);
  const storeTimestampPos = pos + StoredRecordPosition.BORN_HOST + bornHostLength(sysFlag);
  const reconsumePos = storeTimestampPos + 8 + storeHostLength(sysFlag);
  const bodyLengthPos = reconsumePos + 12;
  const topicLengthSize = v2 ? 2 : 1;
  if (bodyLengthPos + 4 + topicLengthSize + 2 > end) {
    return out.corrupt(
      `SYSFLAG 0x${(sysFlag >>> 0).toString(16)} needs more bytes than TOTALSIZE ${totalSize}`,
    );
  }
  const bodyLength = i32(buf, bodyLengthPos);
  const bodyPos = bodyLengthPos + 4;
  if (bodyLength < 0 || bodyLength > end - bodyPos - topicLengthSize - 2) {
    return out.corrupt(`BODY length ${bodyLength} does not fit TOTALSIZE ${totalSize}`);
  }
  const topicLengthPos = bodyPos + bodyLength;
  const topicLength = v2 ? i16(buf, topicLengthPos) : (buf[topicLengthPos]! << 24) >> 24;
  const topicPos = topicLengthPos + topicLengthSize;
  if (topicLength <= 0 || topicPos + topicLength + 2 > end) {
    return out.corrupt(`TOPIC length ${topicLength} does not fit TOTALSIZE ${totalSize}`);
  }
  const propertiesLengthPos = topicPos + topicLength;
  const propertiesLength = i16(buf, propertiesLengthPos);
  const propertiesPos = propertiesLengthPos + 2;
  if (propertiesLength < 0 || propertiesPos + propertiesLength !== end) {
    return out.corrupt(
      `fields add up to ${propertiesPos + propertiesLength - pos} bytes, TOTALSIZE is ${totalSize}`,
    );
  }
  for (let i = topicPos, e = topicPos + topicLength; i < e; i++) {
    if (buf[i] === 0) return out.corrupt('TOPIC contains a NUL byte');
  }
  if (options.checkCRC && bodyLength > 0 && physicalOffset + totalSize > (options.crcValidUpTo ?? 0)) {
    const crc = bodyCrc(buf, bodyPos, bodyLength);
    const bodyCRC = i32(buf, pos + StoredRecordPosition.BODY_CRC);
    if (crc !== bodyCRC) return out.corrupt(`body CRC ${crc} differs from BODYCRC ${bodyCRC}`);
  }
  out.suspect = propertiesLength > 0 && buf[end - 1] === 0;
  out.kind = RecordKind.MESSAGE;
  out.size = totalSize;
  out.queueId = i32(buf, pos + StoredRecordPosition.QUEUE_ID);
  out.queueOffset = readInt64Number(buf, pos + StoredRecordPosition.QUEUE_OFFSET);
  out.sysFlag = sysFlag;
  out.storeTimestamp = readInt64Number(buf, storeTimestampPos);
  out.topic = out.decodeTopic(buf, topicPos, topicLength);
  if (options.buildRequest) {
    const properties = propertiesLength > 0 ? utf8Text(buf, propertiesPos, end) : '';
    let tagsCode = 0n;
    if (propertiesLength > 0) {
      tagsCode = out.tagsCodeOf(getProperty(properties, MessageConst.PROPERTY_TAGS));
      if (out.topic === TopicValidator.RMQ_SYS_SCHEDULE_TOPIC) {
        const t = getProperty(properties, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
        let level = t === undefined ? 0 : (parseDelayLevel(t) ?? 0);
        if (level > options.delayLevels.maxDelayLevel) level = options.delayLevels.maxDelayLevel;
        if (level > 0)
          tagsCode = BigInt(options.delayLevels.computeDeliverTimestamp(level, out.storeTimestamp));
      } else if (out.topic === TIMER_TOPIC) {
        tagsCode = timerTagsCode(properties, out.storeTimestamp);
      }
    }
    const preparedPos = reconsumePos + 4;
    out.request = new DispatchRequest(
      out.topic,
      out.queueId,
      BigInt(physicalOffset),
      totalSize,
      tagsCode,
      BigInt(out.storeTimestamp),
      BigInt(out.queueOffset),
      sysFlag,
      // Nearly always 0 (only transaction parts carry it): no BigInt to build then.
      i32(buf, preparedPos) === 0 && i32(buf, preparedPos + 4) === 0 ? 0n : buf.readBigInt64BE(preparedPos),
      properties,
    );
  }
  return out;
}

type TextSlices = Buffer & { utf8Slice(start: number, end: number): string };
// Buffer.toString goes through slice() and an encoding lookup to reach utf8Slice; present on every
// Buffer of Node 16 and later, it is called directly when there.
const directUtf8Slice = typeof (Buffer.prototype as Partial<TextSlices>).utf8Slice === 'function';

function utf8Text(buf: Buffer, start: number, end: number): string {
  return directUtf8Slice ? (buf as TextSlices).utf8Slice(start, end) : buf.toString('utf8', start, end);
}

type Crc32 = (data: Uint8Array, value?: number) => number;
const nativeCrc32: Crc32 | undefined =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (zlib as { crc32: Crc32 }).crc32 : undefined;

/** BODYCRC of `buf[pos, pos+length)`; a plain typed-array view is cheaper to make than a Buffer slice. */
function bodyCrc(buf: Buffer, pos: number, length: number): number {
  if (nativeCrc32 === undefined) return messageBodyCrc(buf, pos, pos + length);
  return (nativeCrc32(new Uint8Array(buf.buffer, buf.byteOffset + pos, length)) >>> 0) & 0x7fffffff;
}

/**
 * True when `buf[pos, pos+totalSize)` holds a message record whose BODYCRC matches its body; false for
 * anything else (a mismatch, or fields that do not fit). Only what the CRC needs is read: the other
 * checks stay with checkMessageAndReturnSize, which a recovery scan still runs on every record.
 */
export function bodyCrcMatches(buf: Buffer, pos: number, totalSize: number): boolean {
  if (totalSize < MIN_STORED_RECORD_SIZE || pos < 0 || pos + totalSize > buf.length) return false;
  const magic = i32(buf, pos + 4);
  if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return false;
  const sysFlag = i32(buf, pos + StoredRecordPosition.SYS_FLAG);
  const bodyLengthPos =
    pos + StoredRecordPosition.BORN_HOST + bornHostLength(sysFlag) + 8 + storeHostLength(sysFlag) + 12;
  const end = pos + totalSize;
  if (bodyLengthPos + 4 > end) return false;
  const bodyLength = i32(buf, bodyLengthPos);
  if (bodyLength < 0 || bodyLength > end - bodyLengthPos - 4) return false;
  if (bodyLength === 0) return true;
  return bodyCrc(buf, bodyLengthPos + 4, bodyLength) === i32(buf, pos + StoredRecordPosition.BODY_CRC);
}

function needMore(out: CheckedRecord, bytes: number): CheckedRecord {
  out.corrupt(`need ${bytes} bytes`);
  out.size = bytes;
  return out;
}

/** True when the result only asks for more bytes in the buffer. */
export function needsMoreBytes(r: CheckedRecord): boolean {
  return r.kind === RecordKind.CORRUPT && r.reason.startsWith('need ');
}

/** Bytes of a record's head that always hold its STORETIMESTAMP (IPv6 born host included). */
export const STORE_TIMESTAMP_HEAD_SIZE = StoredRecordPosition.BORN_HOST + 20 + 8;

/** STORETIMESTAMP of the record whose first bytes are `head`, undefined when `head` is too short. */
export function storeTimestampOf(head: Buffer): bigint | undefined {
  if (head.length < StoredRecordPosition.BORN_HOST + 16) return undefined;
  const pos =
    StoredRecordPosition.BORN_HOST + bornHostLength(head.readInt32BE(StoredRecordPosition.SYS_FLAG));
  return pos + 8 > head.length ? undefined : head.readBigInt64BE(pos);
}
