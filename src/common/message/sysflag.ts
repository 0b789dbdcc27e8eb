/** Bits of the message SYSFLAG (upstream `MessageSysFlag`, 4.9.8). */

import { RemotingCommandError } from '../errors.js';

export const MessageSysFlag = {
  COMPRESSED_FLAG: 0x1,
  MULTI_TAGS_FLAG: 0x2,
  TRANSACTION_NOT_TYPE: 0,
  TRANSACTION_PREPARED_TYPE: 0x4,
  TRANSACTION_COMMIT_TYPE: 0x8,
  TRANSACTION_ROLLBACK_TYPE: 0xc,
  BORNHOST_V6_FLAG: 0x10,
  STOREHOSTADDRESS_V6_FLAG: 0x20,
  NEED_UNWRAP_FLAG: 0x40,
  INNER_BATCH_FLAG: 0x80,
  COMPRESSION_LZ4_TYPE: 0x100,
  COMPRESSION_ZSTD_TYPE: 0x200,
  COMPRESSION_ZLIB_TYPE: 0x300,
  COMPRESSION_TYPE_COMPARATOR: 0x700,
} as const;

/** Values of the compression type bits (8–10); upstream `CompressionType`. */
export const CompressionType = { LZ4: 1, ZSTD: 2, ZLIB: 3 } as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/** The transaction type bits (mask 0xC). */
export function getTransactionValue(flag: number): number {
  return flag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
}

export function resetTransactionValue(flag: number, type: number): number {
  return (flag & ~MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) | type;
}

export function clearCompressedFlag(flag: number): number {
  return flag & ~MessageSysFlag.COMPRESSED_FLAG;
}

/** Raw value of bits 8–10 (0..7). */
export function compressionTypeBits(flag: number): number {
  return (flag & MessageSysFlag.COMPRESSION_TYPE_COMPARATOR) >> 8;
}

/**
 * `MessageSysFlag.getCompressionType`: 0 means ZLIB (producers before 4.9.4 set no type bits);
 * 4–7 are undefined and refused like upstream's "Unknown compress type value".
 */
export function getCompressionType(flag: number): CompressionType {
  const v = compressionTypeBits(flag);
  switch (v) {
    case 0:
    case 3:
      return CompressionType.ZLIB;
    case 1:
      return CompressionType.LZ4;
    case 2:
      return CompressionType.ZSTD;
    default:
      throw new RemotingCommandError('sysFlag', `unknown compression type ${v} in SYSFLAG 0x${hex(flag)}`);
  }
}

/** `CompressionType.getCompressionFlag`: the type bits to OR into SYSFLAG. */
export function compressionFlag(type: CompressionType): number {
  return type << 8;
}

/** Bytes the born host takes in a stored record: 4+4 (IPv4) or 16+4 (IPv6). */
export function bornHostLength(sysFlag: number): 8 | 20 {
  return (sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) === 0 ? 8 : 20;
}

/** Bytes the store host takes in a stored record. */
export function storeHostLength(sysFlag: number): 8 | 20 {
  return (sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) === 0 ? 8 : 20;
}

function hex(flag: number): string {
  return (flag >>> 0).toString(16);
}
