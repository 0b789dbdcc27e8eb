/** Tag and index-key hashes the broker stores; they must equal Java's `String.hashCode` results. */

import { javaStringHashCode } from '../java-hash.js';

/** Consume-queue tagsCode of a TAGS value: its hash code sign-extended to int64; 0 if absent or empty. */
export function tagsString2tagsCode(tags: string | undefined): bigint {
  if (tags === undefined || tags.length === 0) return 0n;
  return BigInt(javaStringHashCode(tags));
}

/** The int32 the broker compares with a subscription's codeSet: the low 32 bits of a tagsCode. */
export function tagsCodeToInt(tagsCode: bigint): number {
  return Number(BigInt.asIntN(32, tagsCode));
}

/** `IndexFile.indexKeyHashMethod`: |hashCode|, where Integer.MIN_VALUE (whose abs stays negative) gives 0. */
export function indexKeyHash(key: string): number {
  return indexKeyHashOf(javaStringHashCode(key));
}

/** indexKeyHash of a key whose Java hashCode is `hashCode`. */
export function indexKeyHashOf(hashCode: number): number {
  return hashCode === -2147483648 ? 0 : Math.abs(hashCode);
}

/** Index key of a message key or UNIQ_KEY: `topic#key` (`IndexService.buildKey`). */
export function buildIndexKey(topic: string, key: string): string {
  return `${topic}#${key}`;
}
