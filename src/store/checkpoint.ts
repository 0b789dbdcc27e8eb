/**
 * StoreCheckpoint (upstream layout): a 4 KiB file holding physicMsgTimestamp @0, logicsMsgTimestamp @8
 * and indexMsgTimestamp @16 (int64 ms, big-endian). Upstream updates the file through a mapping; here
 * each flush writes `checkpoint.tmp`, fsyncs it, renames it over `checkpoint` and fsyncs the
 * directory, so a crash leaves either the old or the new checkpoint, never a mix.
 */

import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../common/logger.js';
import { describeError, fsyncDirectory } from './file-io.js';
import { StoreIOError } from './store-error.js';

export const CHECKPOINT_FILE_SIZE = 4096;
/** Recovery starts from a file stored at least this long before the checkpoint (upstream's margin). */
const MIN_TIMESTAMP_MARGIN = 3000n;

/** Math.min for int64 values. */
function minOf(a: bigint, b: bigint): bigint {
  if (a < b) return a;
  return b;
}

export class StoreCheckpoint {
  readonly path: string;
  private physicMsgTimestamp = 0n;
  private logicsMsgTimestamp = 0n;
  private indexMsgTimestamp = 0n;
  private readonly logger: Logger | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(path: string, options: { logger?: Logger } = {}) {
    this.path = path;
    this.logger = options.logger;
    fs.mkdirSync(dirname(path), { recursive: true });
    let data: Buffer | undefined;
    try {
      data = fs.readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new StoreIOError(path, `cannot read the checkpoint: ${describeError(err)}`, { cause: err });
      }
    }
    if (data !== undefined) {
      if (data.length < 24) {
        // Only a file written by something else can be this short; 0 makes recovery scan everything.
        this.logger?.warn('checkpoint file is shorter than 24 bytes; missing timestamps read as 0', {
          file: path,
          size: data.length,
        });
        const full = Buffer.alloc(24);
        data.copy(full);
        data = full;
      }
      this.physicMsgTimestamp = data.readBigInt64BE(0);
      this.logicsMsgTimestamp = data.readBigInt64BE(8);
      this.indexMsgTimestamp = data.readBigInt64BE(16);
    }
  }

  getPhysicMsgTimestamp(): bigint {
    return this.physicMsgTimestamp;
  }

  setPhysicMsgTimestamp(timestamp: bigint): void {
    this.physicMsgTimestamp = timestamp;
  }

  getLogicsMsgTimestamp(): bigint {
    return this.logicsMsgTimestamp;
  }

  setLogicsMsgTimestamp(timestamp: bigint): void {
    this.logicsMsgTimestamp = timestamp;
  }

  getIndexMsgTimestamp(): bigint {
    return this.indexMsgTimestamp;
  }

  setIndexMsgTimestamp(timestamp: bigint): void {
    this.indexMsgTimestamp = timestamp;
  }

  /** Upstream `getMinTimestamp`: min(physic, logics) - 3 s, not below 0. */
  getMinTimestamp(): bigint {
    let min = minOf(this.physicMsgTimestamp, this.logicsMsgTimestamp);
    min -= MIN_TIMESTAMP_MARGIN;
    return min < 0n ? 0n : min;
  }

  /** Upstream `getMinTimestampIndex`: also not after the index timestamp. */
  getMinTimestampIndex(): bigint {
    const min = this.getMinTimestamp();
    return minOf(min, this.indexMsgTimestamp);
  }

  private content(): Buffer {
    const buf = Buffer.alloc(CHECKPOINT_FILE_SIZE);
    buf.writeBigInt64BE(this.physicMsgTimestamp, 0);
    buf.writeBigInt64BE(this.logicsMsgTimestamp, 8);
    buf.writeBigInt64BE(this.indexMsgTimestamp, 16);
    return buf;
  }

  /** Writes the current values durably (blocking). */
  flush(): void {
    const tmp = `${this.path}.tmp`;
    try {
      const fd = fs.openSync(tmp, 'w');
      try {
        fs.writeSync(fd, this.content(), 0, CHECKPOINT_FILE_SIZE, 0);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, this.path);
      fsyncDirectory(dirname(this.path));
    } catch (err) {
      throw new StoreIOError(this.path, `cannot write the checkpoint: ${describeError(err)}`, { cause: err });
    }
  }

  /** Same as flush without blocking the event loop; calls run one after another. */
  flushAsync(): Promise<void> {
    const run = async (): Promise<void> => {
      const tmp = `${this.path}.tmp`;
      try {
        const handle = await fs.promises.open(tmp, 'w');
        try {
          await handle.write(this.content(), 0, CHECKPOINT_FILE_SIZE, 0);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.promises.rename(tmp, this.path);
        const dir = await fs.promises.open(dirname(this.path), 'r');
        try {
          await dir.sync();
        } finally {
          await dir.close();
        }
      } catch (err) {
        throw new StoreIOError(this.path, `cannot write the checkpoint: ${describeError(err)}`, {
          cause: err,
        });
      }
    };
    const next = this.pending.then(run, run);
    this.pending = next.catch(() => undefined);
    return next;
  }

  /** Upstream `shutdown`: a final flush. */
  shutdown(): void {
    this.flush();
  }
}
