/**
 * The order in which upstream's HashMaps and HashSets iterate, so the bodies we write list entries as the
 * Java name server would. Order carries no meaning for any reader; it only makes our bytes comparable
 * with Java's. Our tables keep insertion order (a JS Map), which is also the order Java keeps inside
 * one hash bucket. One difference remains: a Java table never shrinks, so after it held many more
 * entries than it does now, its bucket count (and so its order) can differ from the one computed here.
 */
import { JAVA_LONG_KEY, javaHashMapIterationOrder, javaHashMapOrder } from '../../common/fastjson/index.js';

/** Initial capacities upstream's RouteInfoManager gives its tables. */
export const TableCapacity = {
  topicQueueTable: 1024,
  brokerAddrTable: 128,
  clusterAddrTable: 32,
  brokerLiveTable: 256,
  filterServerTable: 256,
} as const;

/** Keys of a `HashMap<String, V>` / `HashSet<String>` in Java iteration order. */
export function javaStringOrder(keys: Iterable<string>, initialCapacity?: number): string[] {
  const list = [...keys];
  if (list.length < 2) return list;
  return initialCapacity === undefined ? javaHashMapOrder(list) : javaHashMapOrder(list, { initialCapacity });
}

/** Entries of a string-keyed map in Java iteration order. */
export function javaOrderedEntries<V>(
  map: ReadonlyMap<string, V>,
  initialCapacity?: number,
): Array<[string, V]> {
  return javaStringOrder(map.keys(), initialCapacity).map((k) => [k, map.get(k) as V]);
}

/** Keys of a `HashMap<Long, V>` (brokerAddrs) in Java iteration order. */
export function javaLongOrder(keys: Iterable<bigint>): bigint[] {
  const list = [...keys];
  return list.length < 2 ? list : javaHashMapIterationOrder(list, JAVA_LONG_KEY);
}
