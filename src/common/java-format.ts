/**
 * Java's text for numbers where the broker reports figures as strings (GET_BROKER_RUNTIME_INFO):
 * `String.valueOf(double)`, `String.format("%.Nf", d)`, MessageFormat's grouped longs and
 * `MixAll.humanReadableByteCount`. mqadmin shows these strings as they come.
 */
import { formatJavaDouble } from './fastjson/index.js';

/** `Double.toString` (shortest round-trip digits, as JDK 19+ and fastjson's RyuDouble give). */
export function javaDoubleString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return formatJavaDouble(x);
}

/**
 * `String.format("%.<digits>f", x)` in an English locale. Java's Formatter rounds the shortest
 * decimal digits of the double HALF_UP (so 0.125 gives "0.13" and 1.005 gives "1.01", where
 * toFixed would look at the binary value and give "1.00").
 */
export function javaFormatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return javaDoubleString(x);
  const negative = x < 0 || Object.is(x, -0);
  const sci = Math.abs(x).toExponential();
  const e = sci.indexOf('e');
  const mantissa = sci.slice(0, e).replace('.', '');
  // |x| = mantissa * 10^scale
  const scale = Number(sci.slice(e + 1)) - (mantissa.length - 1);
  let scaled: bigint;
  const shift = scale + digits;
  if (shift >= 0) {
    scaled = BigInt(mantissa) * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    const m = BigInt(mantissa);
    scaled = m / divisor;
    if ((m % divisor) * 2n >= divisor) scaled += 1n;
  }
  const text = scaled.toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, text.length - digits);
  const fraction = digits === 0 ? '' : `.${text.slice(text.length - digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** A long as NumberFormat writes it inside a MessageFormat: groups of three digits, comma-separated. */
export function javaGroupedLong(n: number | bigint): string {
  const s = BigInt(n).toString();
  const negative = s.startsWith('-');
  const digits = negative ? s.slice(1) : s;
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return negative ? `-${out}` : out;
}

/** `MixAll.humanReadableByteCount(bytes, si)`: "512 B", "1.5 KiB", "3.2 GiB" (or kB/MB/GB with `si`). */
export function humanReadableByteCount(bytes: number, si: boolean): string {
  const unit = si ? 1000 : 1024;
  if (bytes < unit) return `${bytes} B`;
  const exp = Math.trunc(Math.log(bytes) / Math.log(unit));
  const pre = `${(si ? 'kMGTPE' : 'KMGTPE').charAt(exp - 1)}${si ? '' : 'i'}`;
  return `${javaFormatFixed(bytes / unit ** exp, 1)} ${pre}B`;
}
