/**
 * Java String and number semantics the wire format depends on: hash codes, ordering and parsing must
 * give the same answers as the JVM, or tag filters, rebalancing and index lookups diverge.
 */

import { ValidationError } from '../errors.js';
import { parseJavaInt } from '../java-parse.js';

/** `String.compareTo`: UTF-16 code unit order; returns the same int Java does (not just its sign). */
export function javaStringCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * `Character.isWhitespace(char)`: Unicode space, line and paragraph separators except the no-break
 * spaces, plus the ASCII controls 9–13 and 28–31. (Java 8 also counted U+180E; Java 9+ does not.)
 */
export function javaIsWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x1680) return false;
  return (
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x2006) ||
    (c >= 0x2008 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** `UtilAll.isBlank`: undefined, empty, or only `Character.isWhitespace` characters. */
export function javaIsBlank(s: string | undefined | null): boolean {
  if (s === undefined || s === null) return true;
  for (let i = 0; i < s.length; i++) {
    if (!javaIsWhitespace(s.charCodeAt(i))) return false;
  }
  return true;
}

/** `s.trim().isEmpty()`: Java's trim drops every char <= U+0020 from both ends. */
export function javaTrimIsEmpty(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x20) return false;
  }
  return true;
}

/** `Integer.parseInt(s)` (radix 10) that throws a ValidationError naming `what` where Java throws. */
export function requireJavaInt(s: string, what: string): number {
  const v = parseJavaInt(s);
  if (v === undefined) throw new ValidationError(`${what}: "${s}" is not an int`);
  return v;
}

/** True when `v` is an integer Java could hold in an `int`. */
export function isInt32(v: number): boolean {
  return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;
}

/** True when `v` fits a Java `long`. */
export function isInt64(v: bigint): boolean {
  return BigInt.asIntN(64, v) === v;
}
