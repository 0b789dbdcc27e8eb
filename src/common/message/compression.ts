/**
 * Message body compression. Only ZLIB exists here (zlib-wrapped deflate, what java.util.zip's
 * Deflater/Inflater produce); LZ4 and ZSTD bodies are refused with a typed error because Node has no
 * built-in codec for them. Decompression is always bounded so a small hostile body cannot expand into
 * an unbounded allocation.
 */

import * as zlib from 'node:zlib';
import { RemotingCommandError } from '../errors.js';
import {
  DEFAULT_COMPRESS_LEVEL,
  DEFAULT_COMPRESS_MSG_BODY_OVER_HOWMUCH,
  DEFAULT_MAX_MESSAGE_SIZE,
} from './message-const.js';
import { CompressionType, compressionTypeBits, getCompressionType, MessageSysFlag } from './sysflag.js';

/** A body compressed with a codec this implementation lacks (LZ4, ZSTD). */
export class UnsupportedCompressionError extends RemotingCommandError {
  readonly compressionType: number;

  constructor(compressionType: number) {
    super(
      'message',
      `compression type ${compressionName(compressionType)} (${compressionType}) is not supported`,
    );
    this.compressionType = compressionType;
  }
}

function compressionName(type: number): string {
  return type === CompressionType.LZ4 ? 'LZ4' : type === CompressionType.ZSTD ? 'ZSTD' : 'ZLIB';
}

/** Producer rule (`tryToCompressMessage`): compress a non-batch body of at least `threshold` bytes. */
export function shouldCompressBody(
  bodyLength: number,
  threshold = DEFAULT_COMPRESS_MSG_BODY_OVER_HOWMUCH,
): boolean {
  return bodyLength >= threshold;
}

/**
 * Compresses like upstream's ZlibCompressor (Deflater(level) in a DeflaterOutputStream). The output is
 * valid for any Java inflater; it is not guaranteed byte-identical to Java's, since the bundled zlib
 * builds differ.
 */
export function compressBody(
  body: Uint8Array,
  type: CompressionType = CompressionType.ZLIB,
  level = DEFAULT_COMPRESS_LEVEL,
): Buffer {
  if (type !== CompressionType.ZLIB) throw new UnsupportedCompressionError(type);
  return zlib.deflateSync(body, { level });
}

/** SYSFLAG bits a producer sets for a body compressed with `type` (0x1 | type << 8). */
export function compressedSysFlag(type: CompressionType = CompressionType.ZLIB): number {
  return MessageSysFlag.COMPRESSED_FLAG | (type << 8);
}

/**
 * Inflates `body` per the compression type bits of `sysFlag` (0 and 3 are ZLIB). Output above
 * `maxOutputLength` bytes is refused before it is allocated. Bytes after the end of the zlib stream
 * are ignored, as Java's InflaterInputStream ignores them.
 */
export function decompressBody(
  body: Uint8Array,
  sysFlag: number = MessageSysFlag.COMPRESSED_FLAG,
  maxOutputLength: number = DEFAULT_MAX_MESSAGE_SIZE,
): Buffer {
  const bits = compressionTypeBits(sysFlag);
  if (bits === CompressionType.LZ4 || bits === CompressionType.ZSTD)
    throw new UnsupportedCompressionError(bits);
  getCompressionType(sysFlag);
  let out: Buffer;
  try {
    out = zlib.inflateSync(body, { maxOutputLength: Math.max(1, maxOutputLength) });
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RemotingCommandError('message', `decompressed body exceeds ${maxOutputLength} bytes`, {
        cause: e,
      });
    }
    const msg = e instanceof Error ? e.message : String(e);
    throw new RemotingCommandError('message', `corrupt zlib body: ${msg}`, { cause: e });
  }
  if (out.length > maxOutputLength) {
    throw new RemotingCommandError('message', `decompressed body exceeds ${maxOutputLength} bytes`);
  }
  return out;
}
