/**
 * UNIQ_KEY, the client-generated message id (upstream `MessageClientIDSetter`, 4.9.8). Upper-case hex of
 *   ip (4 or 16 bytes) | pid (int16) | class loader hash (int32) | ms since start of month (int32) | counter (int16)
 * "Start of month" is the 1st, 00:00, in the producer's local time zone. Everything environmental is
 * injected so this stays pure and testable.
 */

import { ValidationError } from '../errors.js';
import { bytesToIp } from './host.js';
import { hexToBytes } from './message-id.js';

/**
 * Offset of local time from UTC, in ms, at a UTC instant (Java `TimeZone.getOffset(long)`); e.g.
 * `(t) => -new Date(t).getTimezoneOffset() * 60_000` for the process zone.
 */
export type TimeZoneOffset = (utcMillis: number) => number;

/** A zone with a constant offset. */
export function fixedTimeZone(offsetMinutes: number): TimeZoneOffset {
  const ms = offsetMinutes * 60_000;
  return () => ms;
}

/** UTC instant of the 1st of the month, 00:00 local, `monthDelta` months after the month of `utcMillis`. */
export function startOfMonth(utcMillis: number, tz: TimeZoneOffset, monthDelta = 0): number {
  const local = new Date(utcMillis + tz(utcMillis));
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + monthDelta, 1);
  // The offset at the target wall time may differ from now (DST); settle it with a second lookup.
  const guess = wall - tz(utcMillis);
  return wall - tz(guess);
}

export interface UniqKeyEnvironment {
  /** Client IP: 4 or 16 bytes (Java `UtilAll.getIP()`). */
  readonly ip: Uint8Array;
  /** Process id; only the low 16 bits are used. */
  readonly pid: number;
  /** Java writes `MessageClientIDSetter.class.getClassLoader().hashCode()`; any int32 works. */
  readonly classLoaderHash: number;
  /** Current time in ms since the epoch. */
  now(): number;
  readonly timeZone: TimeZoneOffset;
}

/** A generator, one per process as in Java (its counter and month window are process-wide there). */
export class UniqKeyGenerator {
  private readonly env: UniqKeyEnvironment;
  private readonly prefix: string;
  private startTime: number;
  private nextStartTime: number;
  private counter = 0;

  constructor(env: UniqKeyEnvironment) {
    if (env.ip.length !== 4 && env.ip.length !== 16) {
      throw new ValidationError(`client ip has ${env.ip.length} bytes; expected 4 or 16`);
    }
    this.env = env;
    const fix = Buffer.allocUnsafe(env.ip.length + 6);
    Buffer.from(env.ip.buffer, env.ip.byteOffset, env.ip.length).copy(fix, 0);
    fix.writeInt16BE((env.pid << 16) >> 16, env.ip.length);
    fix.writeInt32BE(env.classLoaderHash | 0, env.ip.length + 2);
    this.prefix = fix.toString('hex').toUpperCase();
    const now = env.now();
    this.startTime = startOfMonth(now, env.timeZone);
    this.nextStartTime = startOfMonth(now, env.timeZone, 1);
  }

  /** `createUniqID()`. */
  next(): string {
    const current = this.env.now();
    if (current >= this.nextStartTime) {
      this.startTime = startOfMonth(current, this.env.timeZone);
      this.nextStartTime = startOfMonth(current, this.env.timeZone, 1);
    }
    let diff = (current - this.startTime) | 0;
    // A clock stepped back a little (NTP) would give a negative time; Java clamps it.
    if (diff < 0 && diff > -1_000_000) diff = 0;
    const count = this.counter;
    this.counter = (this.counter + 1) & 0xffff;
    return this.prefix + hex(diff >>> 0, 8) + hex(count, 4);
  }
}

function hex(v: number, width: number): string {
  return v.toString(16).toUpperCase().padStart(width, '0');
}

function uniqKeyBytes(id: string): Buffer {
  return hexToBytes(id, 'UNIQ_KEY', [32, 56]);
}

/**
 * `getNearlyTimeFromID`: the ms offset in the id added to the start of the current month, or of the
 * previous month when that would not be before `now`. Only right within a month of generation and with
 * the producer's time zone.
 */
export function uniqKeyTimestamp(id: string, now: number, tz: TimeZoneOffset): number {
  const bytes = uniqKeyBytes(id);
  const ipLen = bytes.length === 28 ? 16 : 4;
  const span = bytes.readUInt32BE(ipLen + 6);
  let monthStart = startOfMonth(now, tz);
  if (monthStart + span >= now) monthStart = startOfMonth(now, tz, -1);
  return monthStart + span;
}

/** The client IP in a UNIQ_KEY as text. */
export function uniqKeyIp(id: string): string {
  const bytes = uniqKeyBytes(id);
  return bytesToIp(bytes, 0, bytes.length === 28 ? 16 : 4);
}

/** The 16-bit pid in a UNIQ_KEY (`getPidFromID`). */
export function uniqKeyPid(id: string): number {
  const bytes = uniqKeyBytes(id);
  return bytes.readUInt16BE(bytes.length - 12);
}
