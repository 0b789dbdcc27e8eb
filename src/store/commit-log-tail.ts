/**
 * The newest commit-log bytes, kept in memory so that reading them needs no file read: nearly every
 * pull of a consumer that keeps up, the long-polling check and the scheduler read records that were
 * written moments ago. Upstream gets this from its memory-mapped files; here the write buffers are the
 * cache. Each turn's records are encoded into the next free region of a slab and written from there;
 * a slab region is never reused, so once written it is immutable and reads return views of it, not
 * copies. The oldest slabs are dropped once more than `capacity` bytes are held (the views handed out
 * keep their slab alive until they are dropped too). At most `capacity` bytes are readable, and at most
 * `capacity` + one slab are held.
 */

import { WriteBuffer } from './stored-record-writer.js';

/** Regions of the log held in memory: contiguous in the log and in the slab. */
interface Chunk {
  /** Commit-log offset of bytes[start]. */
  from: number;
  slab: Buffer;
  start: number;
  end: number;
}

export class CommitLogTail {
  private slab: WriteBuffer;
  private slabUsed = 0;
  private chunks: Chunk[] = [];
  private head = 0;
  private held = 0;

  /**
   * @param capacity bytes of written log kept readable from memory; 0 keeps none (writes still go
   *   through slabs).
   * @param slabSize bytes per slab; a turn larger than a slab gets a slab of its own.
   */
  constructor(
    readonly capacity: number,
    private readonly slabSize: number,
  ) {
    this.slab = new WriteBuffer(slabSize);
  }

  /**
   * A slab with at least `size` free bytes from the returned position, for the turn's records. The
   * region counts as used up to what `used` is told after encoding.
   */
  reserve(size: number): { out: WriteBuffer; start: number } {
    // Nothing is kept, so nothing reads the slab once its write ended: it can be reused.
    if (this.capacity <= 0) this.slabUsed = 0;
    if (this.slab.bytes.length - this.slabUsed < size) {
      this.slab = new WriteBuffer(Math.max(this.slabSize, size));
      this.slabUsed = 0;
    }
    return { out: this.slab, start: this.slabUsed };
  }

  /** The turn's encoding ended at `end` of the current slab. */
  used(end: number): void {
    this.slabUsed = end;
  }

  /** Bytes [start, end) of `slab` now hold the log from offset `from` (their write has ended). */
  add(from: number, slab: Buffer, start: number, end: number): void {
    if (this.capacity <= 0 || end <= start) return;
    const last = this.chunks[this.chunks.length - 1];
    if (
      last !== undefined &&
      this.chunks.length > this.head &&
      last.slab === slab &&
      last.end === start &&
      last.from + (last.end - last.start) === from
    ) {
      last.end = end;
    } else {
      this.chunks.push({ from, slab, start, end });
    }
    this.held += end - start;
    let excess = this.held - this.capacity;
    while (excess > 0) {
      const oldest = this.chunks[this.head]!;
      const length = oldest.end - oldest.start;
      if (length <= excess) {
        this.dropOldest();
        excess -= length;
      } else {
        // The slab stays alive until its last region goes: memory is bounded by capacity + one slab.
        oldest.start += excess;
        oldest.from += excess;
        this.held -= excess;
        excess = 0;
      }
    }
  }

  /** Forgets every byte below `offset` (files deleted) — or all of them. */
  dropBefore(offset: number): void {
    while (this.head < this.chunks.length) {
      const c = this.chunks[this.head]!;
      if (c.from + (c.end - c.start) > offset) break;
      this.dropOldest();
    }
  }

  clear(): void {
    this.chunks = [];
    this.head = 0;
    this.held = 0;
  }

  /** Bytes held. */
  get size(): number {
    return this.held;
  }

  /** Lowest offset held, or -1. */
  get minOffset(): number {
    return this.chunks[this.head]?.from ?? -1;
  }

  /**
   * `[offset, offset + size)` when memory holds all of it: a view when one region does, else a copy
   * joined from adjacent regions; undefined otherwise. Views must not be written to.
   */
  read(offset: number, size: number): Buffer | undefined {
    const chunks = this.chunks;
    let lo = this.head;
    let hi = chunks.length - 1;
    if (size <= 0 || hi < lo || offset < chunks[lo]!.from) return undefined;
    // The last region holding `offset` or below it.
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (chunks[mid]!.from <= offset) lo = mid;
      else hi = mid - 1;
    }
    const first = chunks[lo]!;
    const at = first.start + (offset - first.from);
    if (at >= first.end) return undefined;
    if (at + size <= first.end) return first.slab.subarray(at, at + size);
    const out = Buffer.allocUnsafe(size);
    let copied = first.slab.copy(out, 0, at, first.end);
    for (let i = lo + 1; copied < size; i++) {
      const c = chunks[i];
      if (c === undefined || c.from !== offset + copied) return undefined;
      copied += c.slab.copy(out, copied, c.start, Math.min(c.end, c.start + (size - copied)));
    }
    return out;
  }

  private dropOldest(): void {
    const c = this.chunks[this.head]!;
    this.held -= c.end - c.start;
    this.head++;
    // Compacts now and then instead of shifting the array on every drop.
    if (this.head >= 64 && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}
