/** Body CRC as RocketMQ stores it: CRC-32 (IEEE, as java.util.zip.CRC32) masked to a non-negative int. */

import * as zlib from 'node:zlib';

type Crc32Fn = (data: Uint8Array, value?: number) => number;

// node:zlib gained crc32 in Node 20.15; older 20.x fall back to the table.
const native: Crc32Fn | undefined =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (zlib as { crc32: Crc32Fn }).crc32 : undefined;

let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  if (table !== undefined) return table;
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  table = t;
  return t;
}

/** Table-driven CRC-32; exported so tests can check it against the native one. */
export function crc32Table(data: Uint8Array, start = 0, end: number = data.length): number {
  const t = crcTable();
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = (t[(c ^ (data[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Unsigned CRC-32 of `data[start, end)`. */
export function crc32(data: Uint8Array, start = 0, end: number = data.length): number {
  if (native !== undefined) {
    // A plain Uint8Array view: Buffer#subarray builds a Buffer, which costs more than the CRC of a
    // small body.
    let view = data;
    if (start !== 0 || end !== data.length) {
      view =
        start >= 0 && start <= end && end <= data.length
          ? new Uint8Array(data.buffer, data.byteOffset + start, end - start)
          : data.subarray(start, end);
    }
    return native(view) >>> 0;
  }
  return crc32Table(data, start, end);
}

/** `UtilAll.crc32`: CRC-32 & 0x7FFFFFFF, the value of a record's BODYCRC field. */
export function messageBodyCrc(data: Uint8Array, start = 0, end: number = data.length): number {
  return crc32(data, start, end) & 0x7fffffff;
}

/**
 * Up to this many bytes, slicing-by-16 in JavaScript beats the native CRC, whose call and view
 * cost more than a small body's CRC (measured: 128 B 73 ns vs 155 ns, 1 KiB 460 ns vs 382 ns).
 */
const SLICED_MAX_BYTES = 512;
let sliced: Int32Array | undefined;

/** Slicing-by-16 tables, 256 entries each: entry n of table k is the CRC of byte n then k zero bytes. */
function slicedTables(): Int32Array {
  if (sliced !== undefined) return sliced;
  const base = crcTable();
  const t = new Int32Array(16 * 256);
  for (let n = 0; n < 256; n++) t[n] = base[n] as number;
  for (let k = 1; k < 16; k++) {
    for (let n = 0; n < 256; n++) {
      const v = t[(k - 1) * 256 + n] as number;
      t[k * 256 + n] = (v >>> 8) ^ (base[v & 0xff] as number);
    }
  }
  sliced = t;
  return t;
}

/**
 * `messageBodyCrc` of `view`'s bytes [start, end), for callers that keep a DataView of their buffer
 * (a batch's body: one view for all its messages' CRCs).
 */
export function messageBodyCrcOfView(view: DataView, start: number, end: number): number {
  if (end - start > SLICED_MAX_BYTES && native !== undefined) {
    return (native(new Uint8Array(view.buffer, view.byteOffset + start, end - start)) >>> 0) & 0x7fffffff;
  }
  const t = slicedTables();
  let c = -1;
  let i = start;
  for (; i + 16 <= end; i += 16) {
    const a = c ^ view.getInt32(i, true);
    const b = view.getInt32(i + 4, true);
    const x = view.getInt32(i + 8, true);
    const y = view.getInt32(i + 12, true);
    c =
      (t[0xf00 | (a & 0xff)] as number) ^
      (t[0xe00 | ((a >>> 8) & 0xff)] as number) ^
      (t[0xd00 | ((a >>> 16) & 0xff)] as number) ^
      (t[0xc00 | (a >>> 24)] as number) ^
      (t[0xb00 | (b & 0xff)] as number) ^
      (t[0xa00 | ((b >>> 8) & 0xff)] as number) ^
      (t[0x900 | ((b >>> 16) & 0xff)] as number) ^
      (t[0x800 | (b >>> 24)] as number) ^
      (t[0x700 | (x & 0xff)] as number) ^
      (t[0x600 | ((x >>> 8) & 0xff)] as number) ^
      (t[0x500 | ((x >>> 16) & 0xff)] as number) ^
      (t[0x400 | (x >>> 24)] as number) ^
      (t[0x300 | (y & 0xff)] as number) ^
      (t[0x200 | ((y >>> 8) & 0xff)] as number) ^
      (t[0x100 | ((y >>> 16) & 0xff)] as number) ^
      (t[y >>> 24] as number);
  }
  for (; i < end; i++) c = (t[(c ^ view.getUint8(i)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ -1) & 0x7fffffff;
}
