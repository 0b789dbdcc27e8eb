/**
 * The three properties the store itself reads from a record (TAGS for the consume queue's tag hash,
 * KEYS and UNIQ_KEY for the index), found in the properties' UTF-8 bytes where a batch carries them,
 * by the rules getProperty applies to the decoded string: segments split on \u0002, the name runs to
 * the first \u0001 from the segment start, empty names and values are skipped, a later duplicate
 * wins. The separators are single bytes that never occur inside a multi-byte UTF-8 sequence, so byte
 * and character positions pick the same segments. Nothing is decoded for a record that has none of
 * them, and an ASCII value is hashed straight from its bytes.
 */
import { MessageConst } from '../common/message/message-const.js';

/** Which value a slot of `findStoreProperties`' output holds. */
export const StoreProperty = { TAGS: 0, KEYS: 1, UNIQ_KEY: 2 } as const;
/** Output slots of findStoreProperties: a start and an end per property. */
export const STORE_PROPERTY_SLOTS = 6;

const NAME_VALUE_SEPARATOR_BYTE = 1;
const PROPERTY_SEPARATOR_BYTE = 2;
const SEPARATOR_WORD = 0x02020202;
/** The names' bytes as big-endian int32 words: TAGS, KEYS, UNIQ and _KEY. */
const WORD = (text: string): number => Buffer.from(text, 'latin1').readInt32BE(0);
const TAGS = WORD(MessageConst.PROPERTY_TAGS);
const KEYS = WORD(MessageConst.PROPERTY_KEYS);
const UNIQ = WORD(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX.slice(0, 4));
const UNIQ_TAIL = WORD(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX.slice(4, 8));

/** Position of the first \u0002 in [from, end), or `end`; four bytes at a time. */
function segmentEnd(view: DataView, from: number, end: number): number {
  let i = from;
  for (; i + 4 <= end; i += 4) {
    // A zero byte in x (a separator in the word) sets that byte's top bit here, and no other does.
    const x = view.getInt32(i) ^ SEPARATOR_WORD;
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
  }
  for (; i < end; i++) if (view.getUint8(i) === PROPERTY_SEPARATOR_BYTE) return i;
  return end;
}

/**
 * Finds TAGS, KEYS and UNIQ_KEY in the bytes [start, end) of `view` and writes each value's byte range
 * to `out[at + 2 * StoreProperty.X]` (start) and the slot after it (end); -1, -1 when absent.
 */
export function findStoreProperties(
  view: DataView,
  start: number,
  end: number,
  out: Int32Array,
  at: number,
): void {
  for (let k = 0; k < STORE_PROPERTY_SLOTS; k++) out[at + k] = -1;
  let index = start;
  while (index < end) {
    const segEnd = segmentEnd(view, index, end);
    const length = segEnd - index;
    // getProperty's rules: the name, then \u0001 (the segment's first, as no name holds one), then
    // at least one value byte. The shortest name is 4 bytes.
    if (length >= 6) {
      const head = view.getInt32(index);
      let which = -1;
      let nameLength = 4;
      if (head === TAGS) which = StoreProperty.TAGS;
      else if (head === KEYS) which = StoreProperty.KEYS;
      else if (head === UNIQ && length >= 10 && view.getInt32(index + 4) === UNIQ_TAIL) {
        which = StoreProperty.UNIQ_KEY;
        nameLength = 8;
      }
      if (
        which >= 0 &&
        length > nameLength + 1 &&
        view.getUint8(index + nameLength) === NAME_VALUE_SEPARATOR_BYTE
      ) {
        out[at + 2 * which] = index + nameLength + 1;
        out[at + 2 * which + 1] = segEnd;
      }
    }
    index = segEnd + 1;
  }
}

/**
 * Java's String.hashCode of the text of `buf[start, end)` continued from `seed` (the hash of what
 * comes before it), or undefined when a byte is not ASCII (the caller then decodes and hashes the
 * string: a UTF-8 sequence is not one UTF-16 unit).
 */
export function asciiJavaHash(buf: Uint8Array, start: number, end: number, seed: number): number | undefined {
  let h = seed | 0;
  for (let i = start; i < end; i++) {
    const b = buf[i] as number;
    if (b >= 0x80) return undefined;
    h = (Math.imul(31, h) + b) | 0;
  }
  return h;
}

/** Java's String.hashCode of `s` continued from `seed`. */
export function continueJavaHash(s: string, seed: number): number {
  let h = seed | 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}
