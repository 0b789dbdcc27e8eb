/** Public API of the message model and its codecs. */

export { javaStringHashCode } from '../java-hash.js';
export { type DecodeBatchOptions, decodeBatch, type EncodeBatchOptions, encodeBatch } from './batch.js';
export {
  compressBody,
  compressedSysFlag,
  decompressBody,
  shouldCompressBody,
  UnsupportedCompressionError,
} from './compression.js';
export { crc32, messageBodyCrc } from './crc32.js';
export {
  bytesToIp,
  type HostAddress,
  hostByteLength,
  hostToBytes,
  hostToString,
  ipToBytes,
  isIPv6,
  UNSPECIFIED_HOST,
} from './host.js';
export { javaStringCompare } from './java-lang.js';
export {
  BLANK_MAGIC_CODE,
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
  Message,
  MessageExt,
  type MessageInit,
} from './message.js';
export {
  DEFAULT_COMPRESS_LEVEL,
  DEFAULT_COMPRESS_MSG_BODY_OVER_HOWMUCH,
  DEFAULT_MAX_MESSAGE_SIZE,
  MessageConst,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
  RESERVED_PROPERTY_NAMES,
} from './message-const.js';
export { createOffsetMsgId, createOffsetMsgIds, decodeOffsetMsgId, type MessageId } from './message-id.js';
export { MessageQueue } from './message-queue.js';
export {
  javaPropertiesOrder,
  messageProperties2String,
  string2messageProperties,
} from './properties.js';
export {
  type BlankRecord,
  type DecodeMessageOptions,
  decodeMessage,
  decodeMessages,
  type EncodeMessageOptions,
  encodeMessage,
  MIN_STORED_RECORD_SIZE,
  readStoredRecordHeader,
  type StoredRecord,
  type StoredRecordHeader,
  StoredRecordPosition,
  storedRecordSize,
} from './stored-format.js';
export {
  bornHostLength,
  CompressionType,
  clearCompressedFlag,
  compressionFlag,
  compressionTypeBits,
  getCompressionType,
  getTransactionValue,
  MessageSysFlag,
  resetTransactionValue,
  storeHostLength,
} from './sysflag.js';
export { buildIndexKey, indexKeyHash, tagsCodeToInt, tagsString2tagsCode } from './tag-hash.js';
export {
  fixedTimeZone,
  startOfMonth,
  type TimeZoneOffset,
  type UniqKeyEnvironment,
  UniqKeyGenerator,
  uniqKeyIp,
  uniqKeyPid,
  uniqKeyTimestamp,
} from './uniq-key.js';
