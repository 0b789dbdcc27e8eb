/**
 * The order Java iterates the broker's tables in, so files and bodies come out as the Java broker
 * writes them. The tables are ConcurrentHashMaps; without resizes or long buckets they iterate like
 * a HashMap of the same table size: by bucket, then insertion order.
 */
import { javaHashMapOrder } from '../common/fastjson/index.js';

/** Table size `new ConcurrentHashMap<>(initialCapacity)` allocates: tableSizeFor(c + c/2 + 1). */
export function concurrentHashMapTableSize(initialCapacity: number): number {
  let n = 1;
  const wanted = initialCapacity + (initialCapacity >>> 1) + 1;
  while (n < wanted) n *= 2;
  return n;
}

/** Keys of a `ConcurrentHashMap<String, V>(initialCapacity)` filled in the given order. */
export function javaConcurrentHashMapOrder(keys: readonly string[], initialCapacity: number): string[] {
  if (keys.length < 2) return [...keys];
  return javaHashMapOrder(keys, { initialCapacity: concurrentHashMapTableSize(initialCapacity) });
}

/** A Map reordered as `javaConcurrentHashMapOrder` iterates it. */
export function javaOrderedMap<V>(map: ReadonlyMap<string, V>, initialCapacity: number): Map<string, V> {
  const out = new Map<string, V>();
  for (const k of javaConcurrentHashMapOrder([...map.keys()], initialCapacity)) out.set(k, map.get(k) as V);
  return out;
}
