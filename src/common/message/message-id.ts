/**
 * offsetMsgId (upstream `MessageDecoder.createMessageId` / `decodeMessageId`): upper-case hex of
 * storeHost address bytes | port int32 | commitLogOffset int64 — 32 characters for IPv4, 56 for IPv6.
 */

import { ValidationError } from '../errors.js';
import { type HostAddress, hostByteLength, readHost, writeHost } from './host.js';
import { isInt64 } from './java-lang.js';

export interface MessageId {
  readonly address: HostAddress;
  readonly offset: bigint;
}

/** Builds the offset id of a message stored at `commitLogOffset` by the broker at `storeHost`. */
export function createOffsetMsgId(storeHost: HostAddress, commitLogOffset: bigint): string {
  if (!isInt64(commitLogOffset))
    throw new ValidationError(`commit log offset ${commitLogOffset} is not a long`);
  if (commitLogOffset >= 0n && commitLogOffset <= MAX_SAFE) {
    oneOffset[0] = Number(commitLogOffset);
    return createOffsetMsgIds(storeHost, oneOffset, 1);
  }
  const hostLen = hostByteLength(storeHost);
  const buf = Buffer.allocUnsafe(hostLen + 8);
  writeHost(buf, 0, storeHost, 'store host');
  buf.writeBigInt64BE(commitLogOffset, hostLen);
  return buf.toString('hex').toUpperCase();
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const oneOffset = [0];
const HEX = '0123456789ABCDEF';
/** Two upper-case hex digits per byte value, as one big-endian 16-bit store. */
const HEX_PAIRS = Uint16Array.from(
  { length: 256 },
  (_, v) => (HEX.charCodeAt(v >>> 4) << 8) | HEX.charCodeAt(v & 15),
);
const COMMA = 0x2c;
const TWO_32 = 4294967296;
let prefixHost: HostAddress | undefined;
/** The store host's hex digits as big-endian int32 words (16 or 40 digits: whole words). */
let prefixWords = new Int32Array(0);
let idScratch = Buffer.alloc(0);
let idView = new DataView(idScratch.buffer, idScratch.byteOffset, 0);

/** The store host's part of every offset id, kept for the host asked last. */
function hostHexWords(storeHost: HostAddress): Int32Array {
  if (storeHost !== prefixHost) {
    const bytes = Buffer.allocUnsafe(hostByteLength(storeHost));
    writeHost(bytes, 0, storeHost, 'store host');
    const hex = Buffer.from(bytes.toString('hex').toUpperCase(), 'latin1');
    prefixWords = Int32Array.from({ length: hex.length / 4 }, (_, k) => hex.readInt32BE(4 * k));
    prefixHost = storeHost;
  }
  return prefixWords;
}

function hexInt32(view: DataView, pos: number, v: number): void {
  view.setUint16(pos, HEX_PAIRS[v >>> 24] as number);
  view.setUint16(pos + 2, HEX_PAIRS[(v >>> 16) & 0xff] as number);
  view.setUint16(pos + 4, HEX_PAIRS[(v >>> 8) & 0xff] as number);
  view.setUint16(pos + 6, HEX_PAIRS[v & 0xff] as number);
}

/**
 * The offset ids of `count` records stored by `storeHost` at `offsets`, joined by `,`: what a batch's
 * send response carries (upstream's doAppend for a MessageExtBatch). The same text as joining
 * createOffsetMsgId's, built in one buffer: the host part is encoded once, not per record.
 */
export function createOffsetMsgIds(
  storeHost: HostAddress,
  offsets: ArrayLike<number>,
  count: number = offsets.length,
): string {
  if (count <= 0) return '';
  const prefix = hostHexWords(storeHost);
  const idLength = 4 * prefix.length + 16;
  const total = count * (idLength + 1) - 1;
  if (idScratch.length < total) {
    idScratch = Buffer.allocUnsafe(Math.max(total, 2 * idScratch.length));
    idView = new DataView(idScratch.buffer, idScratch.byteOffset, idScratch.length);
  }
  const view = idView;
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const offset = offsets[i] as number;
    // Offsets past 2^53 (or negative ones) never come from a commit log, but stay exact this way.
    if (!Number.isSafeInteger(offset) || offset < 0) {
      return Array.from({ length: count }, (_, k) =>
        createOffsetMsgId(storeHost, BigInt(offsets[k] as number)),
      ).join(',');
    }
    if (i > 0) view.setUint8(pos++, COMMA);
    for (let k = 0; k < prefix.length; k++, pos += 4) view.setInt32(pos, prefix[k] as number);
    hexInt32(view, pos, Math.floor(offset / TWO_32));
    hexInt32(view, pos + 8, offset >>> 0);
    pos += 16;
  }
  return idScratch.toString('latin1', 0, pos);
}

/**
 * Same id from record bytes: `hostLength` (8 or 20) host bytes at `hostOffset` and the big-endian
 * offset at `offsetPos`; avoids re-parsing the address on the decode path.
 */
export function offsetMsgIdFromBytes(
  buf: Buffer,
  hostOffset: number,
  hostLength: number,
  offsetPos: number,
): string {
  return (
    buf.toString('hex', hostOffset, hostOffset + hostLength) + buf.toString('hex', offsetPos, offsetPos + 8)
  ).toUpperCase();
}

/** Upper- or lower-case hex of exactly `expectedLengths` characters to bytes; ValidationError otherwise. */
export function hexToBytes(id: string, what: string, expectedLengths: readonly number[]): Buffer {
  if (!expectedLengths.includes(id.length) || !/^[0-9A-Fa-f]*$/.test(id)) {
    throw new ValidationError(`${what} "${id}" is not ${expectedLengths.join(' or ')} hex characters`);
  }
  return Buffer.from(id, 'hex');
}

/** `decodeMessageId`: 32 characters is IPv4, 56 is IPv6; anything else is refused. */
export function decodeOffsetMsgId(msgId: string): MessageId {
  const bytes = hexToBytes(msgId, 'offset message id', [32, 56]);
  const ipLen = bytes.length === 16 ? 4 : 16;
  const port = bytes.readInt32BE(ipLen);
  if (port < 0 || port > 0xffff) throw new ValidationError(`offset message id "${msgId}" has port ${port}`);
  const address = readHost(bytes, 0, ipLen, 'message id');
  return { address, offset: bytes.readBigInt64BE(ipLen + 4) };
}
