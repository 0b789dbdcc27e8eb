/**
 * The newest commit-log bytes, kept in memory so that reading them needs no file read: nearly every
 * pull of a consumer that keeps up, the long-polling check and the scheduler read records that were
 * written moments ago. Upstream gets this from its memory-mapped files; here the write buffers are the
 * cache. Each turn's records are encoded into the next free region of a slab and written from there.
 * The slabs form a ring allocated once: fresh memory for every turn costs a page fault per 4 KiB,
 * which made appends a third slower. Because a slab is reused, reads get copies, never views. At most
 * `capacity` bytes are readable; the ring holds `capacity` rounded up to slabs, plus one.
 *
 * Encoding into the ring costs appends a fifth to a quarter of their CPU (1 KiB messages, 16 or 64
 * appenders: every byte goes to memory that left the CPU cache since the ring last came round, where
 * one reused buffer stays in it), so the ring is used only while somebody reads the newest bytes. The
 * cache starts asleep; a read within the newest `capacity` bytes wakes it (that read, and reads of
 * what was written before, still go to the file); once `capacity` bytes were appended without such a
 * read, it forgets what it holds and sleeps again. Asleep, every turn is encoded at the start of the
 * current slab, which stays in the CPU cache.
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
  private readonly ring: WriteBuffer[] = [];
  private readonly ringSize: number;
  private ringIndex = 0;
  private slab: WriteBuffer;
  private slabUsed = 0;
  private chunks: Chunk[] = [];
  private head = 0;
  private held = 0;
  /** Whether turns go into the ring and stay readable (see the top of this file). */
  private awake = false;
  /** End offset of the newest bytes added (before the first, any read is near the head). */
  private newestEnd = Number.NEGATIVE_INFINITY;
  /** Bytes added since the last read within the newest `capacity` bytes. */
  private addedSinceRead = 0;

  /**
   * @param capacity bytes of written log kept readable from memory; 0 keeps none (writes still go
   *   through slabs).
   * @param slabSize bytes per slab; a turn larger than a slab gets a slab of its own.
   */
  constructor(
    readonly capacity: number,
    private readonly slabSize: number,
  ) {
    this.ringSize = capacity <= 0 ? 1 : Math.ceil(capacity / slabSize) + 1;
    this.slab = new WriteBuffer(slabSize);
    this.ring.push(this.slab);
  }

  /**
   * A slab with at least `size` free bytes from the returned position, for the turn's records. The
   * region counts as used up to what `used` is told after encoding.
   */
  reserve(size: number): { out: WriteBuffer; start: number } {
    // Nothing is kept, so nothing reads the slab once its write ended: it can be reused.
    if (!this.awake) this.slabUsed = 0;
    if (this.slab.bytes.length - this.slabUsed < size) {
      this.slab = size > this.slabSize ? new WriteBuffer(size) : this.nextRingSlab();
      this.slabUsed = 0;
      // Whatever the cache still held in that memory is about to be overwritten (and everything older).
      let last = -1;
      for (let i = this.head; i < this.chunks.length; i++) {
        if (this.chunks[i]!.slab === this.slab.bytes) last = i;
      }
      // dropOldest may compact the array, so count instead of comparing indexes.
      for (let n = last - this.head + 1; n > 0; n--) this.dropOldest();
    }
    return { out: this.slab, start: this.slabUsed };
  }

  /** The ring's next slab: allocated on first use (an idle broker holds one), then reused. */
  private nextRingSlab(): WriteBuffer {
    this.ringIndex = (this.ringIndex + 1) % this.ringSize;
    let slab = this.ring[this.ringIndex];
    if (slab === undefined) {
      slab = new WriteBuffer(this.slabSize);
      this.ring.push(slab);
    }
    return slab;
  }

  /** The turn's encoding ended at `end` of the current slab. */
  used(end: number): void {
    this.slabUsed = end;
  }

  /** Bytes [start, end) of `slab` now hold the log from offset `from` (their write has ended). */
  add(from: number, slab: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.newestEnd = from + (end - start);
    if (!this.awake) return;
    this.addedSinceRead += end - start;
    if (this.addedSinceRead > this.capacity) {
      // Nobody read any of what the cache holds now: stop paying for it.
      this.awake = false;
      this.clear();
      return;
    }
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
   * Somebody reads the log at `offset`, from memory or from the file: within the newest `capacity`
   * bytes, that wakes the cache (or keeps it awake), as the turns from now on are worth keeping.
   */
  noteRead(offset: number): void {
    if (this.capacity > 0 && offset >= this.newestEnd - this.capacity) {
      this.addedSinceRead = 0;
      this.awake = true;
    }
  }

  /** A copy of `[offset, offset + size)` when memory holds all of it, else undefined. */
  read(offset: number, size: number): Buffer | undefined {
    this.noteRead(offset);
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
