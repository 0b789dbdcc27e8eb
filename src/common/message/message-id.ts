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
  const hostLen = hostByteLength(storeHost);
  const buf = Buffer.allocUnsafe(hostLen + 8);
  writeHost(buf, 0, storeHost, 'store host');
  buf.writeBigInt64BE(commitLogOffset, hostLen);
  return buf.toString('hex').toUpperCase();
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
