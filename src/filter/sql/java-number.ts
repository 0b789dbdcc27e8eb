/**
 * Java's string-to-value conversions as upstream's ComparisonExpression uses them on property values:
 * Integer.valueOf, Long.valueOf, Double.valueOf, Boolean.valueOf. Each returns undefined where Java
 * throws NumberFormatException.
 */

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

const ND = /\p{Nd}/u;

/**
 * `Character.digit(c, 10)` for one UTF-16 unit: ASCII digits and any other BMP decimal digit (Unicode
 * category Nd, per this runtime's Unicode tables). Every BMP run of Nd digits is ten code points
 * starting at its zero and no two runs touch, so the digit's value is how many Nd units precede it.
 */
export function javaDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c < 0x80 || !ND.test(String.fromCharCode(c))) return -1;
  let value = 0;
  while (value < 9 && ND.test(String.fromCharCode(c - value - 1))) value++;
  return value;
}

/** Integer.parseInt(s, 10) / Long.parseLong: optional sign, at least one digit, no spaces, in range. */
function parseJavaIntegral(s: string, min: bigint, max: bigint): bigint | undefined {
  const len = s.length;
  if (len === 0) return undefined;
  let i = 0;
  let negative = false;
  const first = s.charCodeAt(0);
  if (first === 0x2d || first === 0x2b) {
    negative = first === 0x2d;
    i = 1;
    if (len === 1) return undefined;
  }
  const limit = negative ? -min : max;
  let result = 0n;
  // Accumulate in a double while that is exact (below 2^49, times ten plus a digit stays below 2^53).
  let small = 0;
  let useSmall = true;
  for (; i < len; i++) {
    const d = javaDigit(s.charCodeAt(i));
    if (d < 0) return undefined;
    if (useSmall && small < 2 ** 49) {
      small = small * 10 + d;
      continue;
    }
    if (useSmall) {
      result = BigInt(small);
      useSmall = false;
    }
    result = result * 10n + BigInt(d);
    if (result > limit) return undefined;
  }
  if (useSmall) result = BigInt(small);
  if (result > limit) return undefined;
  return negative ? -result : result;
}

/** Integer.valueOf(String). */
export function javaParseInt(s: string): number | undefined {
  const v = parseJavaIntegral(s, BigInt(INT_MIN), BigInt(INT_MAX));
  return v === undefined ? undefined : Number(v);
}

/** Long.valueOf(String). */
export function javaParseLong(s: string): bigint | undefined {
  return parseJavaIntegral(s, LONG_MIN, LONG_MAX);
}

/** Boolean.valueOf(String): only a case-insensitive "true" is true; never fails. */
export function javaParseBoolean(s: string): boolean {
  return s.length === 4 && s.toLowerCase() === 'true';
}

/** String.trim(): strips every char <= U+0020 from both ends. */
export function javaTrim(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?$/;
const SPECIAL = /^([+-]?)(NaN|Infinity)$/;
const HEX = /^([+-]?)0[xX](?:([0-9a-fA-F]+)\.?|([0-9a-fA-F]*)\.([0-9a-fA-F]+))[pP]([+-]?)([0-9]+)[fFdD]?$/;

/**
 * Double.valueOf(String) (FloatingDecimal.readJavaFormatString): trimmed; decimal with optional
 * exponent and one f/F/d/D suffix; NaN and Infinity with optional sign; hexadecimal with a binary
 * exponent. Decimal strings are correctly rounded by both Java and JS, so JS does the conversion.
 */
export function javaParseDouble(input: string): number | undefined {
  const s = javaTrim(input);
  if (s.length === 0) return undefined;
  if (DECIMAL.test(s)) {
    const last = s.charCodeAt(s.length - 1);
    const isSuffix = last === 0x66 || last === 0x46 || last === 0x64 || last === 0x44;
    return Number(isSuffix ? s.slice(0, -1) : s);
  }
  const special = SPECIAL.exec(s);
  if (special !== null) {
    if (special[2] === 'NaN') return Number.NaN;
    return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  const hex = HEX.exec(s);
  if (hex !== null) {
    const intDigits = hex[2] ?? hex[3] ?? '';
    const fracDigits = hex[4] ?? '';
    const expDigits = (hex[6] ?? '0').replace(/^0+(?=\d)/, '');
    // Beyond this the result is 0 or infinity whatever the digits; it also bounds the work.
    const expMagnitude = expDigits.length > 6 ? 1_000_000 : Number(expDigits);
    const exponent = hex[5] === '-' ? -expMagnitude : expMagnitude;
    const digits = (intDigits + fracDigits).replace(/^0+/, '');
    const magnitude =
      digits.length === 0 ? 0 : scaleToDouble(BigInt(`0x${digits}`), exponent - 4 * fracDigits.length);
    return hex[1] === '-' ? -magnitude : magnitude;
  }
  return undefined;
}

/** m · 2^e correctly rounded (ties to even) to a double, subnormals included; m > 0. */
function scaleToDouble(m: bigint, e: number): number {
  if (e > 2_000_000) return Number.POSITIVE_INFINITY;
  const bits = m.toString(2).length;
  // Exponent of the value's leading bit.
  const top = bits - 1 + e;
  if (top > 1023) return Number.POSITIVE_INFINITY;
  if (top < -1075) return 0;
  // Keep 53 significant bits, or fewer where the value is subnormal (unit 2^-1074).
  const shift = top >= -1022 ? bits - 53 : -1074 - e;
  if (shift > 0) {
    const s = BigInt(shift);
    let q = m >> s;
    const rem = m - (q << s);
    const half = 1n << (s - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
    m = q;
    e += shift;
  }
  // m < 2^54 and e >= -1074 here, so both factors are exact and the product rounds only on overflow.
  return Number(m) * 2 ** e;
}
