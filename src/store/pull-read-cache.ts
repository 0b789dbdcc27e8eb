/**
 * Read-ahead for pulls (ours; upstream reads its memory-mapped files, Node has no mmap, so every read
 * is a system call). A consumer working through a backlog pulls a batch of its queue at a time; read
 * exactly, that costs a consume-queue read per pull and, where the queue's records lie apart in the
 * commit log (messages sent one at a time to queues taking turns, as most producers do), a
 * commit-log read per message. Here both are read in larger pieces and kept for the next pulls:
 *
 * - commit log: aligned blocks of `blockSize` bytes, never across a file, shared by every queue whose
 *   records lie in them.
 * - consume queue: per queue, `cqReadAheadEntries` entries from where a read had to go to the file.
 *
 * Both live in one least-recently-used table bounded by bytes. The memory of an evicted block is
 * reused for the next block read: fresh memory for every read is what made the pull path spend its
 * time in V8's external-memory garbage collections. So what `record` returns is borrowed: it stays
 * valid for the rest of the pull (see `beginPull`), and a caller copies what it keeps beyond that.
 *
 * Only bytes already written to a file are read, and those never change while the store runs (the
 * commit log and the consume queues are cut back only by recovery, before any read); the callers'
 * minimum-offset checks keep deleted files out.
 */

import type { CommitLog } from './commit-log.js';
import type { ConsumeQueue } from './consume-queue.js';
import { CQ_STORE_UNIT_SIZE } from './consume-queue-entry.js';

/** Commit-log bytes per block: a backlog's pulls read a few blocks per thousand messages. */
export const PULL_READ_BLOCK_SIZE = 64 * 1024;
/** Consume-queue entries read at a time (upstream's 16,000-byte filter walk). */
export const CQ_READ_AHEAD_ENTRIES = 800;
/** Evicted blocks kept for reuse (one pull reads a few at most). */
const SPARE_BLOCKS = 4;

/** What the cache reads through: the commit log's reads of written bytes (CommitLog fits). */
export type CommitLogReader = Pick<CommitLog, 'readData' | 'getMessage' | 'getMinOffset'>;

/** The consume-queue read the cache wraps (ConsumeQueue fits). */
export type IndexReader = Pick<ConsumeQueue, 'getIndexBuffer'>;

interface Block {
  buf: Buffer;
  /** Bytes of `buf` read (less than its size where the file's written data ended). */
  length: number;
  /** The pull that used it last. */
  pull: number;
}

interface CqChunk {
  /** Logical offset of the first entry in `buf`. */
  start: bigint;
  buf: Buffer;
  pull: number;
}

export class PullReadCache {
  /** Commit-log blocks by start offset, and each queue's entries by its reader; oldest use first. */
  private readonly table = new Map<number | IndexReader, Block | CqChunk>();
  private held = 0;
  private readonly spare: Buffer[] = [];
  private pull = 0;
  /** The block the last record came from: consecutive records mostly share one. */
  private lastStart = -1;
  private lastBlock: Block | undefined;
  /**
   * What a queue's entries count against the capacity, however few were read: a full read-ahead, so
   * that the table holds a bounded number of queues.
   */
  private readonly cqCharge: number;

  /**
   * @param capacity bytes held at most, beyond what the running pull uses (> 0).
   * @param commitLogFileSize bytes per commit-log file, so that no block spans two files.
   */
  constructor(
    readonly capacity: number,
    private readonly commitLog: CommitLogReader,
    private readonly commitLogFileSize: number,
    readonly blockSize = PULL_READ_BLOCK_SIZE,
    readonly cqReadAheadEntries = CQ_READ_AHEAD_ENTRIES,
  ) {
    this.cqCharge = cqReadAheadEntries * CQ_STORE_UNIT_SIZE;
  }

  /** Bytes held. */
  get size(): number {
    return this.held;
  }

  /**
   * Starts a pull: what `record` returned before may be overwritten from now on, what it returns
   * from now on stays until the next call.
   */
  beginPull(): void {
    this.pull++;
  }

  /**
   * The `size` stored bytes of the record at commit-log `offset` (the bytes commitLog.getMessage
   * gives), or undefined when they are not readable. Borrowed until the next beginPull; never write
   * to it.
   */
  record(offset: number, size: number): Buffer | undefined {
    if (size > this.blockSize || size <= 0) return this.commitLog.getMessage(offset, size);
    // A deleted file's blocks may still be held: its records are gone.
    if (offset < this.commitLog.getMinOffset()) return undefined;
    const start = this.blockStart(offset);
    const end = offset + size;
    const block = this.block(start, Math.min(end, start + this.blockSize) - start);
    if (block === undefined) return this.commitLog.getMessage(offset, size);
    if (end <= start + block.length) return block.buf.subarray(offset - start, end - start);
    // Across two blocks (never across files: a record does not span files). The next block is the
    // one the following records need.
    const nextStart = start + this.blockSize;
    const next = this.block(nextStart, end - nextStart);
    if (next === undefined || block.length !== this.blockSize) return this.commitLog.getMessage(offset, size);
    const out = Buffer.allocUnsafe(size);
    const head = block.buf.copy(out, 0, offset - start, block.length);
    next.buf.copy(out, head, 0, size - head);
    return out;
  }

  /**
   * Entries of `cq` from logical offset `index`: at least one and at most `maxEntries`, a prefix of
   * what cq.getIndexBuffer gives (what is held may end sooner: ask again from there); undefined where
   * it gives none. Never write to it.
   */
  entries(cq: IndexReader, index: bigint, maxEntries: number): Buffer | undefined {
    const held = this.table.get(cq) as CqChunk | undefined;
    if (held !== undefined) {
      const skip = Number(index - held.start) * CQ_STORE_UNIT_SIZE;
      if (skip >= 0 && skip < held.buf.length) {
        held.pull = this.pull;
        this.touch(cq, held);
        return held.buf.subarray(skip, Math.min(held.buf.length, skip + maxEntries * CQ_STORE_UNIT_SIZE));
      }
    }
    const buf = cq.getIndexBuffer(index, Math.max(maxEntries, this.cqReadAheadEntries));
    if (buf === undefined) return undefined;
    this.put(cq, { start: index, buf, pull: this.pull }, held === undefined ? this.cqCharge : 0);
    const want = maxEntries * CQ_STORE_UNIT_SIZE;
    return buf.length > want ? buf.subarray(0, want) : buf;
  }

  private blockStart(offset: number): number {
    const file = offset - (offset % this.commitLogFileSize);
    return file + Math.floor((offset - file) / this.blockSize) * this.blockSize;
  }

  /**
   * The block at `start` holding at least `need` bytes: held, or read now (as much of the block as
   * its file has written). Undefined when not even `need` bytes are readable there.
   */
  private block(start: number, need: number): Block | undefined {
    let block = this.lastBlock;
    if (start !== this.lastStart || block === undefined) {
      block = this.table.get(start) as Block | undefined;
      if (block !== undefined) this.touch(start, block);
    }
    if (block === undefined || block.length < need) {
      // Not held, or held while its file was still being written there: read it (again).
      const fileEnd = start - (start % this.commitLogFileSize) + this.commitLogFileSize;
      const size = Math.min(this.blockSize, fileEnd - start);
      const buf =
        block !== undefined && block.pull !== this.pull
          ? block.buf
          : (this.spare.pop() ?? Buffer.allocUnsafeSlow(this.blockSize));
      const length = this.commitLog.readData(start, buf.subarray(0, size));
      if (length < need) {
        if (buf !== block?.buf && this.spare.length < SPARE_BLOCKS) this.spare.push(buf);
        return undefined;
      }
      if (block === undefined) {
        block = { buf, length, pull: this.pull };
        this.put(start, block, this.blockSize);
      } else {
        // Re-read in place only when no record of this pull points into it; else into new memory.
        block.buf = buf;
        block.length = length;
      }
    }
    block.pull = this.pull;
    this.lastStart = start;
    this.lastBlock = block;
    return block;
  }

  private touch(key: number | IndexReader, value: Block | CqChunk): void {
    this.table.delete(key);
    this.table.set(key, value);
  }

  /** Adds or replaces an entry; `added` is what it adds to the bytes held. */
  private put(key: number | IndexReader, value: Block | CqChunk, added: number): void {
    this.table.delete(key);
    this.table.set(key, value);
    this.held += added;
    while (this.held > this.capacity) {
      const oldest = this.table.entries().next();
      if (oldest.done === true) break;
      const [k, v] = oldest.value;
      // What the running pull holds stays until it ends, over the capacity for a moment.
      if (v.pull === this.pull) break;
      this.table.delete(k);
      if (typeof k === 'number') {
        this.held -= this.blockSize;
        if (this.spare.length < SPARE_BLOCKS) this.spare.push(v.buf);
        if (k === this.lastStart) {
          this.lastStart = -1;
          this.lastBlock = undefined;
        }
      } else {
        this.held -= this.cqCharge;
      }
    }
  }
}
