/**
 * Java's String.hashCode, which several wire formats depend on: tag hashes in consume queues,
 * index-file slots, and HashMap iteration order (see fastjson/java-hash-map.ts). One definition for
 * the whole project.
 */

/** Java `String.hashCode`: h = 31*h + c over UTF-16 code units with int32 wrap-around. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  }
  return h;
}
