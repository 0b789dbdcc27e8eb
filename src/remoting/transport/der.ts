/**
 * The few ASN.1 DER encoders an X.509 certificate needs (ITU-T X.690), for the self-signed
 * certificate of TLS test mode. Encoding only: nothing here parses untrusted input.
 */

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.of(length);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value. */
export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.of(tag), lengthBytes(content.length), content]);
}

export function sequence(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

export function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** `[n] EXPLICIT`: a constructed context-specific tag around one encoding. */
export function explicit(n: number, inner: Buffer): Buffer {
  return tlv(0xa0 | n, inner);
}

export function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.of(value ? 0xff : 0x00));
}

/** A non-negative INTEGER from its big-endian magnitude. */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const first = trimmed[0] ?? 0;
  return tlv(0x02, first & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : Buffer.from(trimmed));
}

export function smallInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) {
    throw new RangeError(`DER smallInteger out of range: ${value}`);
  }
  const magnitude = Buffer.alloc(4);
  magnitude.writeUInt32BE(value);
  return unsignedInteger(magnitude);
}

export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || arcs.some((a) => !Number.isInteger(a) || a < 0)) {
    throw new RangeError(`not an object identifier: ${dotted}`);
  }
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const groups: number[] = [arc % 128];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) groups.unshift(0x80 | (n % 128));
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A BIT STRING of whole bytes whose trailing zero bits are declared unused (named bit lists). */
export function namedBits(bits: Buffer): Buffer {
  let end = bits.length;
  while (end > 0 && bits[end - 1] === 0) end--;
  const content = bits.subarray(0, end);
  const last = content[content.length - 1] ?? 0;
  let unused = 0;
  if (content.length > 0) while (((last >> unused) & 1) === 0) unused++;
  return tlv(0x03, Buffer.concat([Buffer.of(unused), content]));
}

/** A BIT STRING holding whole bytes (a signature, a DER-encoded key). */
export function bitString(bytes: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.of(0), bytes]));
}

export function octetString(bytes: Buffer): Buffer {
  return tlv(0x04, bytes);
}

export function utf8String(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'));
}

/** An IMPLICIT context-specific primitive tag (`[n] IMPLICIT`, e.g. a GeneralName). */
export function implicitPrimitive(n: number, content: Buffer): Buffer {
  return tlv(0x80 | n, content);
}

function twoDigits(n: number): string {
  return String(n).padStart(2, '0');
}

/** X.509 Time: UTCTime for the years 1950-2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5). */
export function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  const rest =
    twoDigits(date.getUTCMonth() + 1) +
    twoDigits(date.getUTCDate()) +
    twoDigits(date.getUTCHours()) +
    twoDigits(date.getUTCMinutes()) +
    twoDigits(date.getUTCSeconds());
  if (year >= 1950 && year < 2050) return tlv(0x17, Buffer.from(`${twoDigits(year % 100)}${rest}Z`, 'ascii'));
  return tlv(0x18, Buffer.from(`${String(year).padStart(4, '0')}${rest}Z`, 'ascii'));
}
