/**
 * Stored / pulled message records (upstream `MessageDecoder.decode` / `encode`, `CommitLog`):
 *
 *   TOTALSIZE i32 | MAGICCODE i32 | BODYCRC i32 | QUEUEID i32 | FLAG i32 | QUEUEOFFSET i64 |
 *   PHYSICALOFFSET i64 | SYSFLAG i32 | BORNTIMESTAMP i64 | BORNHOST 8/20 | STORETIMESTAMP i64 |
 *   STOREHOST 8/20 | RECONSUMETIMES i32 | PREPARED_TX_OFFSET i64 | BODYLEN i32 | BODY |
 *   TOPICLEN i8 (V1) / i16 (V2) | TOPIC | PROPLEN i16 | PROPERTIES
 *
 * Every length is checked against the record before it is used; a record whose fields do not add up
 * to TOTALSIZE is refused (the broker's checkMessageAndReturnSize does the same).
 */

import { RemotingCommandError, ValidationError } from '../errors.js';
import { compressBody, decompressBody } from './compression.js';
import { messageBodyCrc } from './crc32.js';
import { hostByteLength, readHost, writeHost } from './host.js';
import { isInt32, isInt64 } from './java-lang.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2, MessageExt } from './message.js';
import { DEFAULT_MAX_MESSAGE_SIZE } from './message-const.js';
import { offsetMsgIdFromBytes } from './message-id.js';
import { javaPropertiesOrder, messageProperties2String, string2messageProperties } from './properties.js';
import { bornHostLength, getCompressionType, MessageSysFlag, storeHostLength } from './sysflag.js';

/** Field positions from the start of a record (upstream `MessageDecoder` constants). */
export const StoredRecordPosition = {
  TOTAL_SIZE: 0,
  MAGIC_CODE: 4,
  BODY_CRC: 8,
  QUEUE_ID: 12,
  FLAG: 16,
  QUEUE_OFFSET: 20,
  PHYSICAL_OFFSET: 28,
  SYS_FLAG: 36,
  BORN_TIMESTAMP: 40,
  BORN_HOST: 48,
} as const;

/** Bytes of a V1 record with IPv4 hosts and empty body, topic and properties. */
export const MIN_STORED_RECORD_SIZE = 91;

/** Length of a record with these parts (upstream `calMsgLength`, plus 1 for V2's wider topic length). */
export function storedRecordSize(
  sysFlag: number,
  bodyLength: number,
  topicLength: number,
  propertiesLength: number,
  magicCode: number = MESSAGE_MAGIC_CODE,
): number {
  const topicLengthSize = magicCode === MESSAGE_MAGIC_CODE_V2 ? 2 : 1;
  // TOTALSIZE..BORNTIMESTAMP | born host | STORETIMESTAMP | store host | RECONSUMETIMES, PREPARED_TX, BODYLEN
  const fixed = StoredRecordPosition.BORN_HOST + bornHostLength(sysFlag) + 8 + storeHostLength(sysFlag) + 16;
  return fixed + bodyLength + topicLengthSize + topicLength + 2 + propertiesLength;
}

/** The filler a broker writes at the end of a commit log file: skip to the next file. */
export interface BlankRecord {
  readonly kind: 'blank';
  readonly offset: number;
  readonly totalSize: number;
}

/**
 * A record's fixed fields plus where its variable parts lie in the buffer, without building strings or
 * copying the body. Offsets are absolute positions in the buffer that was read.
 */
export interface StoredRecordHeader {
  readonly kind: 'message';
  readonly offset: number;
  readonly totalSize: number;
  readonly magicCode: number;
  readonly bodyCRC: number;
  readonly queueId: number;
  readonly flag: number;
  readonly queueOffset: bigint;
  readonly physicalOffset: bigint;
  readonly sysFlag: number;
  readonly bornTimestamp: bigint;
  readonly bornHostOffset: number;
  readonly storeTimestamp: bigint;
  readonly storeHostOffset: number;
  readonly reconsumeTimes: number;
  readonly preparedTransactionOffset: bigint;
  readonly bodyOffset: number;
  readonly bodyLength: number;
  readonly topicOffset: number;
  readonly topicLength: number;
  readonly propertiesOffset: number;
  readonly propertiesLength: number;
}

export type StoredRecord = BlankRecord | StoredRecordHeader;

function malformed(message: string): RemotingCommandError {
  return new RemotingCommandError('message', message);
}

function hex32(v: number): string {
  return `0x${(v >>> 0).toString(16).toUpperCase()}`;
}

/**
 * Reads and checks the framing of the record at `offset`. A BLANK record needs only its 8 header bytes
 * in the buffer (the rest of the file after it is unused); a message record must lie wholly inside.
 */
export function readStoredRecordHeader(buf: Buffer, offset = 0): StoredRecord {
  if (!Number.isInteger(offset) || offset < 0 || offset > buf.length) {
    throw malformed(`record offset ${offset} is outside the ${buf.length}-byte buffer`);
  }
  const remaining = buf.length - offset;
  if (remaining < 8) {
    throw malformed(
      `truncated record at offset ${offset}: TOTALSIZE and MAGICCODE need 8 bytes, ${remaining} left`,
    );
  }
  const totalSize = buf.readInt32BE(offset);
  const magicCode = buf.readInt32BE(offset + 4);
  if (magicCode === BLANK_MAGIC_CODE) {
    if (totalSize < 8) throw malformed(`BLANK record at offset ${offset} has TOTALSIZE ${totalSize}`);
    return { kind: 'blank', offset, totalSize };
  }
  if (magicCode !== MESSAGE_MAGIC_CODE && magicCode !== MESSAGE_MAGIC_CODE_V2) {
    throw malformed(`unknown MAGICCODE ${hex32(magicCode)} at offset ${offset + 4}`);
  }
  const v2 = magicCode === MESSAGE_MAGIC_CODE_V2;
  const minSize = MIN_STORED_RECORD_SIZE + (v2 ? 1 : 0);
  if (totalSize < minSize) {
    throw malformed(`TOTALSIZE ${totalSize} at offset ${offset} is below the minimum record size ${minSize}`);
  }
  if (totalSize > remaining) {
    throw malformed(
      `truncated record at offset ${offset}: TOTALSIZE is ${totalSize}, ${remaining} bytes left`,
    );
  }
  const end = offset + totalSize;
  const sysFlag = buf.readInt32BE(offset + StoredRecordPosition.SYS_FLAG);
  const bornHostOffset = offset + StoredRecordPosition.BORN_HOST;
  const storeTimestampPos = bornHostOffset + bornHostLength(sysFlag);
  const storeHostOffset = storeTimestampPos + 8;
  const reconsumePos = storeHostOffset + storeHostLength(sysFlag);
  const bodyLengthPos = reconsumePos + 4 + 8;
  // Fixed part, body length, topic length and properties length must all fit before the body is read.
  if (bodyLengthPos + 4 + (v2 ? 2 : 1) + 2 > end) {
    throw malformed(
      `record at offset ${offset}: SYSFLAG ${hex32(sysFlag)} needs IPv6 host bytes that TOTALSIZE ${totalSize} leaves no room for`,
    );
  }
  const bodyLength = buf.readInt32BE(bodyLengthPos);
  const bodyOffset = bodyLengthPos + 4;
  if (bodyLength < 0 || bodyLength > end - bodyOffset) {
    throw malformed(
      `BODY length ${bodyLength} at offset ${bodyLengthPos} does not fit the record ending at ${end}`,
    );
  }
  const topicLengthPos = bodyOffset + bodyLength;
  if (topicLengthPos + (v2 ? 2 : 1) > end) {
    throw malformed(`TOPIC length at offset ${topicLengthPos} lies past the record end ${end}`);
  }
  const topicLength = v2 ? buf.readInt16BE(topicLengthPos) : buf.readInt8(topicLengthPos);
  const topicOffset = topicLengthPos + (v2 ? 2 : 1);
  if (topicLength < 0 || topicOffset + topicLength + 2 > end) {
    throw malformed(
      `TOPIC length ${topicLength} at offset ${topicLengthPos} does not fit the record ending at ${end}`,
    );
  }
  const propertiesLengthPos = topicOffset + topicLength;
  const propertiesLength = buf.readInt16BE(propertiesLengthPos);
  const propertiesOffset = propertiesLengthPos + 2;
  if (propertiesLength < 0 || propertiesOffset + propertiesLength > end) {
    throw malformed(
      `PROPERTIES length ${propertiesLength} at offset ${propertiesLengthPos} does not fit the record ending at ${end}`,
    );
  }
  if (propertiesOffset + propertiesLength !== end) {
    throw malformed(
      `record at offset ${offset}: TOTALSIZE ${totalSize} but its fields end after ${propertiesOffset + propertiesLength - offset} bytes`,
    );
  }
  return {
    kind: 'message',
    offset,
    totalSize,
    magicCode,
    bodyCRC: buf.readInt32BE(offset + StoredRecordPosition.BODY_CRC),
    queueId: buf.readInt32BE(offset + StoredRecordPosition.QUEUE_ID),
    flag: buf.readInt32BE(offset + StoredRecordPosition.FLAG),
    queueOffset: buf.readBigInt64BE(offset + StoredRecordPosition.QUEUE_OFFSET),
    physicalOffset: buf.readBigInt64BE(offset + StoredRecordPosition.PHYSICAL_OFFSET),
    sysFlag,
    bornTimestamp: buf.readBigInt64BE(offset + StoredRecordPosition.BORN_TIMESTAMP),
    bornHostOffset,
    storeTimestamp: buf.readBigInt64BE(storeTimestampPos),
    storeHostOffset,
    reconsumeTimes: buf.readInt32BE(reconsumePos),
    preparedTransactionOffset: buf.readBigInt64BE(reconsumePos + 4),
    bodyOffset,
    bodyLength,
    topicOffset,
    topicLength,
    propertiesOffset,
    propertiesLength,
  };
}

export interface DecodeMessageOptions {
  /** Default true. When false the body is left empty (Java leaves it null). */
  readBody?: boolean;
  /**
   * Default true. Inflate a body whose SYSFLAG has COMPRESSED_FLAG; the flag is then cleared (as 5.x
   * does; 4.9.8 leaves it set) so the message describes its body. Type bits are kept.
   */
  decompress?: boolean;
  /** Default false. Refuse a body whose CRC32 & 0x7FFFFFFF differs from BODYCRC (checked before inflating). */
  checkCRC?: boolean;
  /** Upper bound for an inflated body; default 4 MiB (maxMessageSize). */
  maxBodySize?: number;
  /** Default false: the body is a view into `buf` (no copy). True copies it out. */
  copyBody?: boolean;
}

/** Decodes the message record at `offset`; its length is the returned `storeSize`. */
export function decodeMessage(buf: Buffer, offset = 0, options: DecodeMessageOptions = {}): MessageExt {
  const h = readStoredRecordHeader(buf, offset);
  if (h.kind === 'blank') {
    throw malformed(`BLANK record (end of commit log file) at offset ${offset}, not a message`);
  }
  const ext = new MessageExt();
  ext.storeSize = h.totalSize;
  ext.magicCode = h.magicCode;
  ext.bodyCRC = h.bodyCRC;
  ext.queueId = h.queueId;
  ext.flag = h.flag;
  ext.queueOffset = h.queueOffset;
  ext.commitLogOffset = h.physicalOffset;
  ext.bornTimestamp = h.bornTimestamp;
  const bornIpLen = bornHostLength(h.sysFlag) === 8 ? 4 : 16;
  const storeIpLen = storeHostLength(h.sysFlag) === 8 ? 4 : 16;
  ext.bornHost = readHost(buf, h.bornHostOffset, bornIpLen, 'born host');
  ext.storeTimestamp = h.storeTimestamp;
  ext.storeHost = readHost(buf, h.storeHostOffset, storeIpLen, 'store host');
  ext.reconsumeTimes = h.reconsumeTimes;
  ext.preparedTransactionOffset = h.preparedTransactionOffset;
  let sysFlag = h.sysFlag;
  if (h.bodyLength > 0 && options.readBody !== false) {
    const bodyEnd = h.bodyOffset + h.bodyLength;
    if (options.checkCRC === true) {
      const crc = messageBodyCrc(buf, h.bodyOffset, bodyEnd);
      if (crc !== h.bodyCRC) {
        throw malformed(
          `body CRC ${crc} differs from BODYCRC ${h.bodyCRC} in the record at offset ${offset}`,
        );
      }
    }
    let body = buf.subarray(h.bodyOffset, bodyEnd);
    if (options.decompress !== false && (sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0) {
      body = decompressBody(body, sysFlag, options.maxBodySize ?? DEFAULT_MAX_MESSAGE_SIZE);
      sysFlag &= ~MessageSysFlag.COMPRESSED_FLAG;
    } else if (options.copyBody === true) {
      body = Buffer.from(body);
    }
    ext.body = body;
  }
  ext.sysFlag = sysFlag;
  ext.topic = buf.toString('utf8', h.topicOffset, h.topicOffset + h.topicLength);
  if (h.propertiesLength > 0) {
    ext.properties = string2messageProperties(
      buf.toString('utf8', h.propertiesOffset, h.propertiesOffset + h.propertiesLength),
    );
  }
  ext.offsetMsgId = offsetMsgIdFromBytes(
    buf,
    h.storeHostOffset,
    storeHostLength(h.sysFlag),
    offset + StoredRecordPosition.PHYSICAL_OFFSET,
  );
  return ext;
}

/** Decodes back-to-back records (a PULL / QUERY_MESSAGE / VIEW_MESSAGE_BY_ID body). */
export function decodeMessages(buf: Buffer, options: DecodeMessageOptions = {}): MessageExt[] {
  const out: MessageExt[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const ext = decodeMessage(buf, offset, options);
    out.push(ext);
    offset += ext.storeSize;
  }
  return out;
}

export interface EncodeMessageOptions {
  /**
   * Java `encode(ext, needCompress)`: compress the body with the SYSFLAG's compression type when
   * COMPRESSED_FLAG is set. Default false: the body is written as it is.
   */
  compress?: boolean;
  /** 'java' writes properties in Java HashMap iteration order (for byte comparison with Java). */
  propertyOrder?: 'insertion' | 'java';
}

const MAX_V1_TOPIC_BYTES = 127;
const MAX_PROPERTIES_BYTES = 32767;

/**
 * Encodes a record as the broker stores it. TOTALSIZE is computed (ext.storeSize is ignored), BODYCRC is
 * written as given, the host V6 bits of SYSFLAG follow the address families. V1 magic unless
 * ext.magicCode is V2 or the topic is longer than 127 bytes (5.x `autoMessageVersionOnTopicLen`).
 */
export function encodeMessage(ext: MessageExt, options: EncodeMessageOptions = {}): Buffer {
  const bornV6 = hostByteLength(ext.bornHost) === 20;
  const storeV6 = hostByteLength(ext.storeHost) === 20;
  let sysFlag = ext.sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (bornV6) sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (storeV6) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  checkInt(sysFlag, 'sysFlag');
  checkInt(ext.bodyCRC, 'bodyCRC');
  checkInt(ext.queueId, 'queueId');
  checkInt(ext.flag, 'flag');
  checkInt(ext.reconsumeTimes, 'reconsumeTimes');
  checkLong(ext.queueOffset, 'queueOffset');
  checkLong(ext.commitLogOffset, 'commitLogOffset');
  checkLong(ext.bornTimestamp, 'bornTimestamp');
  checkLong(ext.storeTimestamp, 'storeTimestamp');
  checkLong(ext.preparedTransactionOffset, 'preparedTransactionOffset');

  let body: Buffer = ext.body;
  if (options.compress === true && (sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0) {
    body = compressBody(body, getCompressionType(sysFlag));
  }
  const topic = Buffer.from(ext.topic, 'utf8');
  const v2 = ext.magicCode === MESSAGE_MAGIC_CODE_V2 || topic.length > MAX_V1_TOPIC_BYTES;
  if (topic.length > 32767) throw new ValidationError(`topic of ${topic.length} bytes is too long to store`);
  const props = options.propertyOrder === 'java' ? javaPropertiesOrder(ext.properties) : ext.properties;
  const propBytes = Buffer.from(messageProperties2String(props), 'utf8');
  if (propBytes.length > MAX_PROPERTIES_BYTES) {
    throw new ValidationError(`properties of ${propBytes.length} bytes exceed ${MAX_PROPERTIES_BYTES}`, 13);
  }
  const magicCode = v2 ? MESSAGE_MAGIC_CODE_V2 : MESSAGE_MAGIC_CODE;
  const size = storedRecordSize(sysFlag, body.length, topic.length, propBytes.length, magicCode);
  if (size > 0x7fffffff) throw new ValidationError(`record of ${size} bytes is too large`);
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  p = out.writeInt32BE(size, p);
  p = out.writeInt32BE(magicCode, p);
  p = out.writeInt32BE(ext.bodyCRC, p);
  p = out.writeInt32BE(ext.queueId, p);
  p = out.writeInt32BE(ext.flag, p);
  p = out.writeBigInt64BE(ext.queueOffset, p);
  p = out.writeBigInt64BE(ext.commitLogOffset, p);
  p = out.writeInt32BE(sysFlag, p);
  p = out.writeBigInt64BE(ext.bornTimestamp, p);
  p = writeHost(out, p, ext.bornHost, 'born host');
  p = out.writeBigInt64BE(ext.storeTimestamp, p);
  p = writeHost(out, p, ext.storeHost, 'store host');
  p = out.writeInt32BE(ext.reconsumeTimes, p);
  p = out.writeBigInt64BE(ext.preparedTransactionOffset, p);
  p = out.writeInt32BE(body.length, p);
  p += body.copy(out, p);
  p = v2 ? out.writeInt16BE(topic.length, p) : out.writeInt8(topic.length, p);
  p += topic.copy(out, p);
  p = out.writeInt16BE(propBytes.length, p);
  p += propBytes.copy(out, p);
  if (p !== size) throw new Error(`encodeMessage wrote ${p} of ${size} bytes`);
  return out;
}

function checkInt(v: number, what: string): void {
  if (!isInt32(v)) throw new ValidationError(`${what} ${v} is not an int`);
}

function checkLong(v: bigint, what: string): void {
  if (typeof v !== 'bigint' || !isInt64(v)) throw new ValidationError(`${what} ${String(v)} is not a long`);
}
