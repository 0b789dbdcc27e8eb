/**
 * Socket addresses as stored in messages (born host, store host) and in message ids: 4 or 16 address
 * bytes followed by an int32 port. The address is kept as text (dotted IPv4, RFC 5952 IPv6) because
 * that is what callers log and dial; the byte form is derived on encode.
 */

import { RemotingCommandError, ValidationError } from '../errors.js';

export interface HostAddress {
  /** Dotted IPv4 (`10.0.0.1`) or IPv6 (`fe80::1`, `::ffff:10.0.0.1`); a `%zone` suffix is ignored. */
  readonly address: string;
  /** 0..65535 */
  readonly port: number;
}

/** Stand-in for a host Java would leave null; encodes as 0.0.0.0:0. */
export const UNSPECIFIED_HOST: HostAddress = Object.freeze({ address: '0.0.0.0', port: 0 });

/** True when the address is IPv6 text (has a colon). */
export function isIPv6(address: string): boolean {
  return address.includes(':');
}

/** Bytes this host takes in a stored record (address + port). */
export function hostByteLength(host: HostAddress): 8 | 20 {
  return isIPv6(host.address) ? 20 : 8;
}

/** Address text to its 4 or 16 bytes; ValidationError when it is not an IP literal. */
export function ipToBytes(address: string): Buffer {
  const zone = address.indexOf('%');
  const text = zone >= 0 ? address.slice(0, zone) : address;
  const out = text.includes(':') ? parseIPv6(text) : parseIPv4(text);
  if (out === undefined) throw new ValidationError(`"${address}" is not an IPv4 or IPv6 address`);
  return out;
}

/** 4 or 16 address bytes to text. */
export function bytesToIp(bytes: Uint8Array, offset = 0, length: number = bytes.length - offset): string {
  if (length === 4) {
    return `${bytes[offset]}.${bytes[offset + 1]}.${bytes[offset + 2]}.${bytes[offset + 3]}`;
  }
  if (length !== 16 || offset < 0 || offset + 16 > bytes.length) {
    throw new ValidationError(`an IP address has 4 or 16 bytes, not ${length}`);
  }
  return formatIPv6(bytes, offset);
}

/** `ip:port`, with IPv6 in brackets. */
export function hostToString(host: HostAddress): string {
  return isIPv6(host.address) ? `[${host.address}]:${host.port}` : `${host.address}:${host.port}`;
}

/** Writes address bytes + int32 port at `offset`; returns the offset after them. */
export function writeHost(buf: Buffer, offset: number, host: HostAddress, what: string): number {
  checkPort(host.port, what);
  const ip = ipToBytes(host.address);
  ip.copy(buf, offset);
  offset += ip.length;
  buf.writeInt32BE(host.port, offset);
  return offset + 4;
}

/** Host bytes + port as one buffer (`MessageExt.socketAddress2ByteBuffer`). */
export function hostToBytes(host: HostAddress, what = 'host'): Buffer {
  const buf = Buffer.allocUnsafe(hostByteLength(host));
  writeHost(buf, 0, host, what);
  return buf;
}

/**
 * Reads address bytes + port. The port must be 0..65535: Java builds an InetSocketAddress from it, which
 * refuses anything else, so such a record is malformed for a Java peer too.
 */
export function readHost(buf: Buffer, offset: number, ipLength: 4 | 16, what: string): HostAddress {
  const address = bytesToIp(buf, offset, ipLength);
  const port = buf.readInt32BE(offset + ipLength);
  if (port < 0 || port > 0xffff) {
    throw new RemotingCommandError(
      'message',
      `${what} port ${port} at offset ${offset + ipLength} is not 0..65535`,
    );
  }
  return { address, port };
}

export function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) {
    throw new ValidationError(`${what} port ${port} is not 0..65535`);
  }
}

function parseIPv4(text: string): Buffer | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = Buffer.allocUnsafe(4);
  for (let i = 0; i < 4; i++) {
    const v = parseDecimalOctet(parts[i] ?? '');
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
}

function parseDecimalOctet(p: string): number | undefined {
  if (p.length === 0 || p.length > 3) return undefined;
  let v = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return undefined;
    v = v * 10 + c;
  }
  return v <= 255 ? v : undefined;
}

function parseIPv6(text: string): Buffer | undefined {
  const out = Buffer.alloc(16);
  const dbl = text.indexOf('::');
  if (dbl >= 0 && text.indexOf('::', dbl + 1) >= 0) return undefined;
  const head = dbl >= 0 ? text.slice(0, dbl) : text;
  const tail = dbl >= 0 ? text.slice(dbl + 2) : '';
  const headGroups = head.length > 0 ? head.split(':') : [];
  const tailGroups = tail.length > 0 ? tail.split(':') : [];
  const words: number[] = [];
  const tailWords: number[] = [];
  if (!parseGroups(headGroups, words, dbl < 0)) return undefined;
  if (!parseGroups(tailGroups, tailWords, true)) return undefined;
  const total = words.length + tailWords.length;
  if (dbl >= 0 ? total > 7 : total !== 8) return undefined;
  for (let i = 0; i < words.length; i++) out.writeUInt16BE(words[i] ?? 0, i * 2);
  const start = 8 - tailWords.length;
  for (let i = 0; i < tailWords.length; i++) out.writeUInt16BE(tailWords[i] ?? 0, (start + i) * 2);
  return out;
}

/** Hex groups; the last one of the address may be a dotted IPv4 (two words). */
function parseGroups(groups: string[], words: number[], mayEndWithIPv4: boolean): boolean {
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] ?? '';
    if (mayEndWithIPv4 && i === groups.length - 1 && g.includes('.')) {
      const v4 = parseIPv4(g);
      if (v4 === undefined) return false;
      words.push(v4.readUInt16BE(0), v4.readUInt16BE(2));
      continue;
    }
    if (g.length === 0 || g.length > 4 || !/^[0-9a-fA-F]+$/.test(g)) return false;
    words.push(Number.parseInt(g, 16));
  }
  return true;
}

function formatIPv6(b: Uint8Array, offset: number): string {
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push(((b[offset + 2 * i] ?? 0) << 8) | (b[offset + 2 * i + 1] ?? 0));
  // IPv4-mapped (::ffff:a.b.c.d) keeps its dotted tail, as Node and RFC 5952 §5 write it.
  if (
    words[0] === 0 &&
    words[1] === 0 &&
    words[2] === 0 &&
    words[3] === 0 &&
    words[4] === 0 &&
    words[5] === 0xffff
  ) {
    return `::ffff:${b[offset + 12]}.${b[offset + 13]}.${b[offset + 14]}.${b[offset + 15]}`;
  }
  // RFC 5952: compress the longest run of two or more zero words (the first on a tie).
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number): string =>
    words
      .slice(from, to)
      .map((w) => w.toString(16))
      .join(':');
  if (bestStart < 0) return hex(0, 8);
  return `${hex(0, bestStart)}::${hex(bestStart + bestLen, 8)}`;
}
