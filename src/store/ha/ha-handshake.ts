/**
 * The signed HA handshake (ours; upstream's HA has none): with ACL on, a slave sends it before its
 * first offset report, and the master streams nothing to a connection until it has verified one.
 *
 * Wire format, all integers big-endian:
 * - 8 bytes magic `FF 52 4D 51 48 41 00 01` ("\xffRMQHA", version 1). Read as an upstream offset
 *   report it is negative, which no 4.9.x slave sends: a plain master refuses it at once;
 * - 4 bytes body length N, 26..HA_HANDSHAKE_MAX_BODY;
 * - N bytes body: 8 bytes timestamp (ms since the epoch, the slave's clock), 16 bytes nonce, 1 byte
 *   length A then A bytes accessKey (UTF-8), 1 byte length S then S bytes signature (ASCII).
 * The signature is upstream ACL's (HMAC-SHA1 keyed by the account's secretKey, Base64) over the
 * magic, the timestamp, the nonce, the accessKey's bytes and the broker name (not sent: both ends
 * know it, so a handshake for one broker group does not open another's master).
 */
import { calSignature } from '../../common/acl/acl-signer.js';

export const HA_HANDSHAKE_MAGIC = Buffer.from([0xff, 0x52, 0x4d, 0x51, 0x48, 0x41, 0x00, 0x01]);
const HEAD_SIZE = 12;
const NONCE_SIZE = 16;
const FIXED_BODY = 8 + NONCE_SIZE + 1 + 1;
/** accessKey and signature each fit one length byte; nothing longer is read. */
const MAX_FIELD = 255;
export const HA_HANDSHAKE_MAX_BODY = FIXED_BODY + 2 * MAX_FIELD;

export interface HAHandshake {
  timestamp: number;
  nonce: Buffer;
  accessKey: string;
  signature: string;
}

export interface HACredentials {
  accessKey: string;
  secretKey: string;
}

function signedContent(timestamp: number, nonce: Buffer, accessKey: string, scope: string): Buffer {
  const ts = Buffer.allocUnsafe(8);
  ts.writeBigInt64BE(BigInt(timestamp), 0);
  return Buffer.concat([
    HA_HANDSHAKE_MAGIC,
    ts,
    nonce,
    Buffer.from(accessKey, 'utf8'),
    Buffer.from(scope, 'utf8'),
  ]);
}

/** The signature a handshake of `accessKey` must carry for broker group `scope`. */
export function handshakeSignature(
  hs: Omit<HAHandshake, 'signature'>,
  secretKey: string,
  scope: string,
): string {
  return calSignature(signedContent(hs.timestamp, hs.nonce, hs.accessKey, scope), secretKey);
}

export function encodeHandshake(
  credentials: HACredentials,
  scope: string,
  timestamp: number,
  nonce: Buffer,
): Buffer {
  const key = Buffer.from(credentials.accessKey, 'utf8');
  if (key.length === 0 || key.length > MAX_FIELD) {
    throw new RangeError(`HA handshake: accessKey must be 1..${MAX_FIELD} bytes`);
  }
  if (nonce.length !== NONCE_SIZE) throw new RangeError(`HA handshake: nonce must be ${NONCE_SIZE} bytes`);
  const sig = Buffer.from(
    handshakeSignature({ timestamp, nonce, accessKey: credentials.accessKey }, credentials.secretKey, scope),
    'ascii',
  );
  const body = FIXED_BODY + key.length + sig.length;
  const out = Buffer.alloc(HEAD_SIZE + body);
  HA_HANDSHAKE_MAGIC.copy(out, 0);
  out.writeInt32BE(body, 8);
  out.writeBigInt64BE(BigInt(timestamp), HEAD_SIZE);
  nonce.copy(out, HEAD_SIZE + 8);
  let pos = HEAD_SIZE + 8 + NONCE_SIZE;
  out[pos++] = key.length;
  key.copy(out, pos);
  pos += key.length;
  out[pos++] = sig.length;
  sig.copy(out, pos);
  return out;
}

export type HandshakeRead =
  | { readonly done: false }
  | { readonly done: true; readonly handshake: HAHandshake; readonly rest: Buffer }
  | { readonly done: true; readonly refusal: string };

const NEED_MORE: HandshakeRead = Object.freeze({ done: false });

/** The master's reader of one handshake: holds at most HEAD_SIZE + HA_HANDSHAKE_MAX_BODY bytes. */
export class HandshakeReader {
  private held: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): HandshakeRead {
    this.held = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    const held = this.held;
    const magicSeen = Math.min(held.length, HA_HANDSHAKE_MAGIC.length);
    if (!held.subarray(0, magicSeen).equals(HA_HANDSHAKE_MAGIC.subarray(0, magicSeen))) {
      return { done: true, refusal: 'no HA handshake (a plain upstream slave, or not a slave at all)' };
    }
    if (held.length < HEAD_SIZE) return NEED_MORE;
    const body = held.readInt32BE(8);
    if (body < FIXED_BODY + 2 || body > HA_HANDSHAKE_MAX_BODY) {
      return {
        done: true,
        refusal: `HA handshake body of ${body} bytes (${FIXED_BODY + 2}..${HA_HANDSHAKE_MAX_BODY})`,
      };
    }
    if (held.length < HEAD_SIZE + body) return NEED_MORE;
    const end = HEAD_SIZE + body;
    const parsed = parseBody(held.subarray(HEAD_SIZE, end));
    if (typeof parsed === 'string') return { done: true, refusal: parsed };
    this.held = Buffer.alloc(0);
    return { done: true, handshake: parsed, rest: held.subarray(end) };
  }
}

function parseBody(body: Buffer): HAHandshake | string {
  const timestamp = body.readBigInt64BE(0);
  if (timestamp < 0n || timestamp > BigInt(Number.MAX_SAFE_INTEGER))
    return 'HA handshake timestamp out of range';
  const nonce = Buffer.from(body.subarray(8, 8 + NONCE_SIZE));
  let pos = 8 + NONCE_SIZE;
  const keyLength = body[pos++] ?? 0;
  if (keyLength === 0 || pos + keyLength + 1 > body.length)
    return 'HA handshake accessKey length does not fit';
  const accessKey = body.toString('utf8', pos, pos + keyLength);
  pos += keyLength;
  const sigLength = body[pos++] ?? 0;
  if (sigLength === 0 || pos + sigLength !== body.length) return 'HA handshake signature length does not fit';
  const signature = body.toString('latin1', pos, pos + sigLength);
  return { timestamp: Number(timestamp), nonce, accessKey, signature };
}

/**
 * Refuses handshakes too far from the master's clock and any nonce seen within that window, so a
 * handshake copied off the wire cannot be sent again. Only verified handshakes are remembered, so
 * the table grows with legitimate slaves' connects, and it is bounded all the same.
 */
export class ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly maxSkewMillis: number,
    private readonly capacity = 4096,
  ) {}

  /** A refusal, or undefined after remembering the nonce. */
  admit(hs: HAHandshake, now: number): string | undefined {
    const skew = Math.abs(now - hs.timestamp);
    if (skew > this.maxSkewMillis) {
      return `HA handshake timestamp is ${skew} ms from the master's clock (haAuthMaxSkewMillis ${this.maxSkewMillis}): stale, replayed or a clock to fix`;
    }
    for (const [nonce, expires] of this.seen) {
      if (expires > now) break;
      this.seen.delete(nonce);
    }
    const key = hs.nonce.toString('hex');
    if (this.seen.has(key)) return 'HA handshake replayed (nonce already used)';
    if (this.seen.size >= this.capacity)
      return `more than ${this.capacity} HA handshakes within the skew window`;
    this.seen.set(key, now + 2 * this.maxSkewMillis);
    return undefined;
  }
}
