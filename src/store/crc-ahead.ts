/**
 * Body CRCs checked ahead of a recovery scan on a worker thread. The body CRC is the largest part of
 * scanning a commit log (zlib's crc32 over every body, about a third of the scan's time); a second
 * core can take it while the scanning thread parses records and dispatches them. The scan asks how far
 * every CRC is known to be correct and skips the CRC of the records before that offset; it checks
 * everything else itself, and every record the worker has not reached yet (the worker starts late,
 * may fall behind on a busy machine, and stops at the first record it cannot confirm).
 */

import { Worker } from 'node:worker_threads';
import type { Logger } from '../common/logger.js';
import { CRC_SLOTS, CrcSlot, type CrcWorkerData } from './commit-log-crc-worker.js';
import type { MappedFile } from './mapped-file.js';

/** What a recovery scan needs from the worker. */
export interface CrcAhead {
  /** Commit-log offset up to which every record's body CRC matched. */
  frontier(): number;
  /** Where the scan is: a record start the worker may jump to when it fell behind. */
  publish(offset: number): void;
  /** Ends the worker (the scan is done). */
  stop(): void;
}

const WORKER_CHUNK_SIZE = 1024 * 1024;

class WorkerCrcAhead implements CrcAhead {
  private readonly slots: BigInt64Array;
  private readonly worker: Worker;

  constructor(slots: BigInt64Array, worker: Worker) {
    this.slots = slots;
    this.worker = worker;
  }

  frontier(): number {
    return Number(Atomics.load(this.slots, CrcSlot.VALIDATED));
  }

  publish(offset: number): void {
    Atomics.store(this.slots, CrcSlot.SCAN, BigInt(offset));
  }

  stop(): void {
    Atomics.store(this.slots, CrcSlot.STOP, 1n);
    void this.worker.terminate();
  }
}

/**
 * Starts the worker for a scan of `files` from `fromOffset` (a record start) when they hold at least
 * `minBytes` of data; undefined when they do not, or when no worker can be started (the scan then
 * checks every CRC itself).
 */
export function startCrcAhead(
  files: readonly MappedFile[],
  fromOffset: number,
  minBytes: number,
  logger: Logger,
): CrcAhead | undefined {
  if (!Number.isFinite(minBytes) || files.length === 0) return undefined;
  let bytes = 0;
  for (const f of files) {
    if (f.fileFromOffset + f.fileSize <= fromOffset) continue;
    bytes += Math.min(f.fileSize, f.allocatedBytes());
    if (bytes >= minBytes) break;
  }
  if (bytes < minBytes) return undefined;
  const shared = new SharedArrayBuffer(CRC_SLOTS * BigInt64Array.BYTES_PER_ELEMENT);
  const slots = new BigInt64Array(shared);
  slots[CrcSlot.VALIDATED] = BigInt(fromOffset);
  slots[CrcSlot.SCAN] = BigInt(fromOffset);
  const data: CrcWorkerData = {
    kind: 'commit-log-crc',
    files: files.map((f) => ({ path: f.fileName, fileFromOffset: f.fileFromOffset, fileSize: f.fileSize })),
    shared,
    chunkSize: WORKER_CHUNK_SIZE,
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./commit-log-crc-worker.js', import.meta.url), { workerData: data });
  } catch (err) {
    logger.warn('cannot start the CRC worker; the scan checks every CRC itself', {
      error: err instanceof Error ? err.message : String(err),
    });
    return undefined;
  }
  // The scan never waits for the worker: its failure only means the scan checks the CRCs itself.
  worker.on('error', (err: Error) => logger.warn('CRC worker failed', { error: err.message }));
  worker.unref();
  return new WorkerCrcAhead(slots, worker);
}
