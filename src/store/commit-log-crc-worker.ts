/**
 * Worker thread of a recovery scan (see crc-ahead.ts): walks the commit-log records ahead of the
 * scanning thread and checks their body CRCs, publishing how far every CRC is known to be correct.
 *
 * The worker decides nothing. It walks the same chain of records as the scan (it starts from a record
 * start the scan published, and goes from record to record by TOTALSIZE, to the next file after a
 * BLANK, as the scan does), and it stops for good at the first thing it does not expect: a CRC that
 * does not match, a size that does not fit, never-written bytes, an unknown MAGICCODE. The scan checks
 * everything past the published offset itself, and every other field of every record anyway.
 *
 * Shared slots (BigInt64Array over a SharedArrayBuffer): VALIDATED, the commit-log offset up to which
 * every record's CRC matched; SCAN, where the scanning thread is (the worker jumps there when the scan
 * overtook it); STOP, set by the scan when it is done.
 */

import * as fs from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2 } from '../common/message/message.js';
import { MIN_STORED_RECORD_SIZE } from '../common/message/stored-format.js';
import { bodyCrcMatches } from './stored-record-reader.js';

export const CrcSlot = { VALIDATED: 0, SCAN: 1, STOP: 2 } as const;
export const CRC_SLOTS = 3;

export interface CrcWorkerFile {
  path: string;
  fileFromOffset: number;
  fileSize: number;
}

export interface CrcWorkerData {
  kind: 'commit-log-crc';
  files: CrcWorkerFile[];
  shared: SharedArrayBuffer;
  chunkSize: number;
}

/** A record larger than this is not walked (the scan decides about it). */
const MAX_RECORD_SIZE = 256 * 1024 * 1024;
/** Records between two looks at STOP and SCAN. */
const RECORDS_PER_ROUND = 256;

function int32(buf: Buffer, pos: number): number {
  return (buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
}

/** Positional reads of one file at a time into a reused buffer. */
class Window {
  buf: Buffer;
  private file = -1;
  private fd = -1;
  start = 0;
  length = 0;

  constructor(
    private readonly files: readonly CrcWorkerFile[],
    size: number,
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Makes `[pos, pos+need)` of file `index` readable at `buf[pos - start]`; false if it cannot be read. */
  ensure(index: number, pos: number, need: number): boolean {
    if (index === this.file && pos >= this.start && pos + need <= this.start + this.length) return true;
    const file = this.files[index]!;
    if (pos + need > file.fileSize) return false;
    if (index !== this.file) {
      this.close();
      this.fd = fs.openSync(file.path, 'r');
      this.file = index;
    }
    if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    const want = Math.min(this.buf.length, file.fileSize - pos);
    let done = 0;
    while (done < want) {
      const n = fs.readSync(this.fd, this.buf, done, want - done, pos + done);
      if (n <= 0) break;
      done += n;
    }
    this.start = pos;
    this.length = done;
    return need <= done;
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    this.file = -1;
    this.length = 0;
  }
}

function fileIndexOf(files: readonly CrcWorkerFile[], offset: number): number {
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    if (offset >= f.fileFromOffset && offset < f.fileFromOffset + f.fileSize) return i;
  }
  return -1;
}

/** The worker's loop; returns when it stops (asked to, or at the first record it cannot confirm). */
export function runCrcWorker(data: CrcWorkerData): void {
  const slots = new BigInt64Array(data.shared);
  const files = data.files;
  const window = new Window(files, data.chunkSize);
  let index = -1;
  let pos = 0;
  try {
    for (;;) {
      if (Atomics.load(slots, CrcSlot.STOP) !== 0n) return;
      const scan = Number(Atomics.load(slots, CrcSlot.SCAN));
      const here = index < 0 ? -1 : files[index]!.fileFromOffset + pos;
      if (scan > here) {
        index = fileIndexOf(files, scan);
        if (index < 0) return;
        pos = scan - files[index]!.fileFromOffset;
      }
      for (let n = 0; n < RECORDS_PER_ROUND; n++) {
        const file = files[index]!;
        const remaining = file.fileSize - pos;
        if (remaining === 0 && index + 1 < files.length) {
          index++;
          pos = 0;
          continue;
        }
        if (remaining < 8 || !window.ensure(index, pos, 8)) return;
        const at = pos - window.start;
        const totalSize = int32(window.buf, at);
        const magic = int32(window.buf, at + 4);
        if (magic === BLANK_MAGIC_CODE) {
          if (totalSize !== remaining || index + 1 >= files.length) return;
          index++;
          pos = 0;
          continue;
        }
        if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return;
        if (totalSize < MIN_STORED_RECORD_SIZE || totalSize > remaining || totalSize > MAX_RECORD_SIZE)
          return;
        if (!window.ensure(index, pos, totalSize)) return;
        if (!bodyCrcMatches(window.buf, pos - window.start, totalSize)) return;
        pos += totalSize;
        Atomics.store(slots, CrcSlot.VALIDATED, BigInt(file.fileFromOffset + pos));
      }
    }
  } finally {
    window.close();
  }
}

const data = workerData as Partial<CrcWorkerData> | null | undefined;
if (!isMainThread && data?.kind === 'commit-log-crc') runCrcWorker(data as CrcWorkerData);
