/**
 * What mqadmin's printf layouts need in TypeScript: `%-20s` / `%14s` columns, Java's toString of
 * maps and longs, UtilAll's date formats (local time, as the JVM prints them), and the --json form.
 */

/** `%-Ns`: left-aligned, padded, never cut (Java pads only). */
export function left(value: unknown, width: number): string {
  return String(value).padEnd(width);
}

/** `%Ns`: right-aligned. */
export function right(value: unknown, width: number): string {
  return String(value).padStart(width);
}

/** UtilAll.frontStringAtLeast: at most `size` characters. */
export function frontStringAtLeast(value: string, size: number): string {
  return value.length > size ? value.slice(0, size) : value;
}

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * UtilAll.YYYY_MM_DD_HH_MM_SS_SSS (`yyyy-MM-dd#HH:mm:ss:SSS`) in local time, as mqadmin's time flags
 * take it; undefined when `text` is not in that form.
 */
export function parseMqadminDate(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})#(\d{2}):(\d{2}):(\d{2}):(\d{3})$/.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return new Date(y, mo - 1, d, h, mi, s, ms).getTime();
}

/** UtilAll.formatDate(…, "yyyy-MM-dd HH:mm:ss"), in local time. */
export function formatDate(ms: number | bigint): string {
  const d = new Date(Number(ms));
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** UtilAll.timeMillisToHumanString2: "yyyy-MM-dd HH:mm:ss,SSS", in local time. */
export function timeMillisToHumanString2(ms: number | bigint): string {
  const d = new Date(Number(ms));
  return `${formatDate(ms)},${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Java's AbstractMap.toString: `{0=127.0.0.1:10911, 1=…}`. */
export function javaMap(map: ReadonlyMap<unknown, unknown>): string {
  return `{${[...map].map(([k, v]) => `${String(k)}=${String(v)}`).join(', ')}}`;
}

/** `%.Nf` of a double. */
export function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

/**
 * A value made JSON-safe for --json: bigint as a decimal string (offsets and timestamps are Java
 * longs, past 2^53), Maps as objects (their keys as strings), Sets as arrays.
 */
export function jsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = jsonValue(v);
    return out;
  }
  if (value instanceof Set) return [...value].map(jsonValue);
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = jsonValue(v);
    return out;
  }
  return value;
}

/** The --json text of a result: one document, two-space indented, newline-terminated. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(jsonValue(value), null, 2)}\n`;
}
