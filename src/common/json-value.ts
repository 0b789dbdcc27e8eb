/**
 * JSON forms of our values for `JSON.stringify`, which throws on a bigint: a bigint becomes a number
 * when it is exact (<= Number.MAX_SAFE_INTEGER in size), else its decimal string; a Buffer (a message
 * body) becomes a base64 string; a Map (message properties) a plain object. docs/producer.md says so.
 */

export function toJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    const small = value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER);
    return small ? Number(value) : value.toString();
  }
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([k, v]) => [String(k), toJsonValue(v)]));
  if (Array.isArray(value)) return value.map(toJsonValue);
  return value;
}

/** The own enumerable fields of `source` (plus `extra`), each through toJsonValue. */
export function jsonFields(source: object, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...source, ...extra })) {
    if (v !== undefined && typeof v !== 'function') out[k] = toJsonValue(v);
  }
  return out;
}

/** Gives a plain result object a `toJSON` that JSON.stringify uses; not enumerable, so copies and deepEqual ignore it. */
export function withToJSON<T extends object>(target: T): T {
  Object.defineProperty(target, 'toJSON', {
    value(this: object) {
      return jsonFields(this);
    },
    enumerable: false,
  });
  return target;
}
