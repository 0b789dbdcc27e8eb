/**
 * java.util.BitSet as the BATCH_ACK body carries it: `BitSet.toByteArray()` (little-endian: bit i is
 * bit i%8 of byte i/8, trailing zero bytes dropped) written by fastjson as a base64 string, and
 * `BitSet.valueOf(bytes)` on the way back. Here a bit set is the sorted list of its set indexes.
 */
import { ValidationError } from '../errors.js';

/** Largest bit index accepted when decoding (a checkpoint holds at most 32 messages; margin kept). */
export const MAX_BIT_SET_INDEX = 1 << 16;

/** BitSet.toByteArray of the given set indexes. */
export function bitSetToBytes(indexes: Iterable<number>): Buffer {
  let max = -1;
  const list: number[] = [];
  for (const i of indexes) {
    if (!Number.isInteger(i) || i < 0 || i > MAX_BIT_SET_INDEX)
      throw new ValidationError(`bit index out of range: ${i}`);
    list.push(i);
    if (i > max) max = i;
  }
  const bytes = Buffer.alloc(max < 0 ? 0 : (max >> 3) + 1);
  for (const i of list) bytes[i >> 3] = (bytes[i >> 3] as number) | (1 << (i & 7));
  return bytes;
}

/** BitSet.valueOf(bytes): the set indexes, ascending. */
export function bitSetFromBytes(bytes: Uint8Array): number[] {
  if (bytes.length * 8 > MAX_BIT_SET_INDEX + 8)
    throw new ValidationError(`bit set too large: ${bytes.length} bytes`);
  const out: number[] = [];
  for (let b = 0; b < bytes.length; b++) {
    const v = bytes[b] as number;
    if (v === 0) continue;
    for (let bit = 0; bit < 8; bit++) if ((v >> bit) & 1) out.push(b * 8 + bit);
  }
  return out;
}

export function bitSetToBase64(indexes: Iterable<number>): string {
  return bitSetToBytes(indexes).toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function bitSetFromBase64(text: string): number[] {
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new ValidationError('bit set: not base64');
  return bitSetFromBytes(Buffer.from(text, 'base64'));
}
