/**
 * Java's number and boolean parsers as header values and config files need them
 * (`Integer.parseInt`, `Long.parseLong`, `Boolean.parseBoolean`, `Double.parseDouble`) and
 * `Double.toString`. Each parser returns undefined where Java's would throw NumberFormatException,
 * so the caller decides whether a bad value is an error or an absent one.
 */

const INT_MAX = 2147483647;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

/** `Integer.parseInt` on ASCII digits: optional sign, any number of leading zeros, int32 range. */
export function parseJavaInt(s: string): number | undefined {
  const n = s.length;
  let i = 0;
  let negative = false;
  if (n > 0) {
    const c = s.charCodeAt(0);
    if (c === 45) {
      negative = true;
      i = 1;
    } else if (c === 43) {
      i = 1;
    }
  }
  if (i === n) return undefined;
  const limit = negative ? 2147483648 : INT_MAX;
  let v = 0;
  for (; i < n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    v = v * 10 + d;
    if (v > limit) return undefined;
  }
  return negative ? 0 - v : v;
}

/** `Long.parseLong` on ASCII digits: optional sign, any number of leading zeros, int64 range. */
export function parseJavaLong(s: string): bigint | undefined {
  const n = s.length;
  let i = 0;
  let negative = false;
  if (n > 0) {
    const c = s.charCodeAt(0);
    if (c === 45) {
      negative = true;
      i = 1;
    } else if (c === 43) {
      i = 1;
    }
  }
  if (i === n) return undefined;
  // Values below 2^53 (every offset and timestamp in practice) are summed exactly as a number.
  let v = 0;
  let exact = true;
  for (let j = i; j < n; j++) {
    const d = s.charCodeAt(j) - 48;
    if (d < 0 || d > 9) return undefined;
    if (exact) {
      v = v * 10 + d;
      if (v > Number.MAX_SAFE_INTEGER) exact = false;
    }
  }
  if (exact) return BigInt(negative ? 0 - v : v);
  const big = BigInt(i === 0 ? s : s.slice(i));
  const signed = negative ? -big : big;
  return signed < LONG_MIN || signed > LONG_MAX ? undefined : signed;
}

/** `Boolean.parseBoolean`: true exactly for a case-insensitive "true" (false for null). */
export function parseJavaBoolean(s: string | undefined): boolean {
  return (
    s !== undefined &&
    s.length === 4 &&
    (s.charCodeAt(0) | 0x20) === 0x74 &&
    (s.charCodeAt(1) | 0x20) === 0x72 &&
    (s.charCodeAt(2) | 0x20) === 0x75 &&
    (s.charCodeAt(3) | 0x20) === 0x65
  );
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * `Double.parseDouble` for decimal input: surrounding characters <= U+0020 trimmed, optional sign,
 * `NaN`, `Infinity`, digits with an optional point and exponent, an optional f/F/d/D suffix.
 * Java's hexadecimal form (`0x1p3`) is not accepted.
 */
export function parseJavaDouble(s: string): number | undefined {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  let i = start;
  let sign = 1;
  const c0 = s.charCodeAt(i);
  if (c0 === 45 || c0 === 43) {
    if (c0 === 45) sign = -1;
    i++;
  }
  const rest = s.slice(i, end);
  if (rest === 'NaN') return Number.NaN;
  if (rest === 'Infinity') return sign * Number.POSITIVE_INFINITY;
  let j = i;
  let mantissaDigits = 0;
  while (j < end && isDigit(s.charCodeAt(j))) {
    j++;
    mantissaDigits++;
  }
  if (j < end && s.charCodeAt(j) === 46) {
    j++;
    while (j < end && isDigit(s.charCodeAt(j))) {
      j++;
      mantissaDigits++;
    }
  }
  if (mantissaDigits === 0) return undefined;
  if (j < end && (s.charCodeAt(j) | 0x20) === 0x65) {
    j++;
    if (j < end && (s.charCodeAt(j) === 45 || s.charCodeAt(j) === 43)) j++;
    const expStart = j;
    while (j < end && isDigit(s.charCodeAt(j))) j++;
    if (j === expStart) return undefined;
  }
  const exponentEnd = j;
  if (j < end) {
    const suffix = s.charCodeAt(j) | 0x20;
    if (suffix !== 0x66 && suffix !== 0x64) return undefined;
    j++;
  }
  if (j !== end) return undefined;
  return sign * Number(s.slice(i, exponentEnd));
}

/** `Double.toString` (JDK 19+ shortest digits, which JavaScript also produces). */
export function javaDoubleToString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return 'Infinity';
  if (v === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const sign = v < 0 ? '-' : '';
  const a = Math.abs(v);
  const exp = a.toExponential();
  const e = exp.indexOf('e');
  const digits = exp.slice(0, e).replace('.', '');
  const power = Number(exp.slice(e + 1));
  if (a >= 1e-3 && a < 1e7) {
    if (power < 0) return `${sign}0.${'0'.repeat(-power - 1)}${digits}`;
    const intPart = digits.length > power + 1 ? digits.slice(0, power + 1) : digits.padEnd(power + 1, '0');
    const fraction = digits.length > power + 1 ? digits.slice(power + 1) : '0';
    return `${sign}${intPart}.${fraction}`;
  }
  return `${sign}${digits.slice(0, 1)}.${digits.length > 1 ? digits.slice(1) : '0'}E${power}`;
}
