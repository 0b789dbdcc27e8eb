/**
 * The properties string carried in the send header and stored in every record:
 * `name\u0001value\u0002name\u0001value` (upstream `MessageDecoder.messageProperties2String` and
 * `string2messageProperties`, 4.9.8).
 */

import { javaHashMapOrder } from '../fastjson/java-hash-map.js';
import { NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from './message-const.js';

/**
 * Joins the properties in the map's iteration order. 4.9.8 appends \u0002 after every pair and then
 * deletes the last character, so there is no trailing separator. Names and values are written as they
 * are: Java does not escape separators inside them either.
 */
export function messageProperties2String(properties: ReadonlyMap<string, string> | undefined): string {
  if (properties === undefined || properties.size === 0) return '';
  let out = '';
  let first = true;
  for (const [name, value] of properties) {
    // Java skips null values; a JS caller could smuggle one in despite the types.
    if (value === undefined || value === null) continue;
    if (!first) out += PROPERTY_SEPARATOR;
    out += name + NAME_VALUE_SEPARATOR + value;
    first = false;
  }
  return out;
}

/**
 * Parses like upstream: split on \u0002; in each segment the name runs to the first \u0001 searched
 * from the segment start (which may lie beyond the segment); the entry is kept only if that \u0001 is
 * inside the segment with a non-empty name before it and a non-empty value after it. Later duplicates
 * overwrite earlier ones (HashMap.put).
 */
export function string2messageProperties(properties: string): Map<string, string> {
  const map = new Map<string, string>();
  const len = properties.length;
  let index = 0;
  while (index < len) {
    let end = properties.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = len;
    if (end - index >= 3) {
      const kv = properties.indexOf(NAME_VALUE_SEPARATOR, index);
      if (kv > index && kv < end - 1) {
        map.set(properties.slice(index, kv), properties.slice(kv + 1, end));
      }
    }
    index = end + 1;
  }
  return map;
}

/**
 * Reorders `properties` the way a Java `HashMap` holding the same entries, inserted in this map's order,
 * iterates them. Needed only to reproduce Java's bytes exactly, e.g. `MessageDecoder.encode` output.
 * `initialCapacity` is the HashMap constructor argument, for maps Java creates pre-sized.
 */
export function javaPropertiesOrder(
  properties: ReadonlyMap<string, string>,
  initialCapacity?: number,
): Map<string, string> {
  const keys = javaHashMapOrder(
    [...properties.keys()],
    initialCapacity === undefined ? undefined : { initialCapacity },
  );
  return new Map(keys.map((k) => [k, properties.get(k) as string]));
}
