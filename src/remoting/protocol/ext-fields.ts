/** Helpers for a command's extFields map shared by both header serializations. */
import { javaHashMapOrder } from '../../common/fastjson/java-hash-map.js';

/** Sets a decoded extFields entry; a peer-chosen key such as `__proto__` must stay a plain entry. */
export function setExtField(fields: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') {
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    fields[key] = value;
  }
}

/**
 * Keys in the order a ROCKETMQ header writes them: the fast-encoded keys first (those present), then
 * the remaining keys in HashMap order.
 */
export function rocketmqKeyOrder(
  ext: Record<string, string>,
  fastKeys: readonly string[] | undefined,
): readonly string[] {
  if (fastKeys === undefined || fastKeys.length === 0) return extFieldsOrder(ext);
  const first = fastKeys.filter((k) => ext[k] !== undefined);
  const rest: Record<string, string> = {};
  for (const key of Object.keys(ext)) if (!first.includes(key)) setExtField(rest, key, ext[key] as string);
  return [...first, ...extFieldsOrder(rest)];
}

const orderCache = new Map<string, readonly string[]>();
const ORDER_CACHE_LIMIT = 1024;

/**
 * The keys of `ext` in the order Java's HashMap would write them. A given header type always has
 * the same key set, so the order is computed once per key set rather than on every frame.
 */
export function extFieldsOrder(ext: Record<string, string>): readonly string[] {
  const keys = Object.keys(ext);
  // NUL joins the keys: a key holding a NUL could pass for two keys, so such sets are not cached, and
  // the count tells the empty set from one empty key. Either collision would drop a later header's fields.
  if (keys.some((k) => k.includes('\u0000'))) return javaHashMapOrder(keys);
  const signature = `${keys.length}\u0000${keys.join('\u0000')}`;
  let order = orderCache.get(signature);
  if (order === undefined) {
    order = javaHashMapOrder(keys);
    if (orderCache.size < ORDER_CACHE_LIMIT) orderCache.set(signature, order);
  }
  return order;
}
