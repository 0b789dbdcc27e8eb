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
    const view = start === 0 && end === data.length ? data : data.subarray(start, end);
    return native(view) >>> 0;
  }
  return crc32Table(data, start, end);
}

/** `UtilAll.crc32`: CRC-32 & 0x7FFFFFFF, the value of a record's BODYCRC field. */
export function messageBodyCrc(data: Uint8Array, start = 0, end: number = data.length): number {
  return crc32(data, start, end) & 0x7fffffff;
}
