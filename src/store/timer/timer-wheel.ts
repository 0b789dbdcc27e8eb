/**
 * The in-memory wheel of pending timer messages: one bucket per precision slot, each a growable
 * Float64Array of timer-queue offsets (in queue order, since entries arrive in queue order) plus the
 * smallest tag code (due time) in it. A message is due when its slot has passed: slot s is given out
 * once the clock reaches (s + 1) × precision, as upstream's dequeue reads a slot only after its
 * write time moved beyond it, so nothing is given out before its time.
 *
 * An entry whose slot is already behind the read slot (it reached the wheel late) joins the read
 * slot, the next one to be given out. Memory (npm run bench:timer, 1 M pending): about 16 bytes per
 * pending entry when slots hold many (the arrays double as they grow), about 85 when entries are
 * spread a few per slot over 3 days (each non-empty slot costs a Map entry and a small object).
 */

const INITIAL_CAPACITY = 2;

export class TimerBucket {
  offsets: Float64Array;
  length = 0;
  /** Smallest tag code (ms) added: below the slot's start only for entries that arrived late. */
  minTagsCode = Number.POSITIVE_INFINITY;

  constructor(capacity = INITIAL_CAPACITY) {
    this.offsets = new Float64Array(capacity);
  }

  push(offset: number, tagsCode: number): void {
    if (this.length === this.offsets.length) {
      const grown = new Float64Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.length++] = offset;
    if (tagsCode < this.minTagsCode) this.minTagsCode = tagsCode;
  }

  /** The lowest queue offset in the bucket (entries are pushed in queue order). */
  get firstOffset(): number {
    return this.length === 0 ? Number.POSITIVE_INFINITY : this.offsets[0]!;
  }

  /** Bytes held (for the memory figures). */
  get bytes(): number {
    return this.offsets.byteLength;
  }
}

export class TimerWheel {
  private readonly buckets = new Map<number, TimerBucket>();
  private pending = 0;

  constructor(readonly precisionMs: number) {}

  slotOf(timeMs: number): number {
    return Math.floor(timeMs / this.precisionMs);
  }

  /** Adds an entry due at `tagsCode`, in slot max(slot(tagsCode), readSlot); returns that slot. */
  add(queueOffset: number, tagsCode: number, readSlot: number): number {
    const slot = Math.max(this.slotOf(tagsCode), readSlot);
    let bucket = this.buckets.get(slot);
    if (bucket === undefined) {
      bucket = new TimerBucket();
      this.buckets.set(slot, bucket);
    }
    bucket.push(queueOffset, tagsCode);
    this.pending++;
    return slot;
  }

  /** Entries waiting in `slot` (upstream's getNum, for flow control). */
  countAt(slot: number): number {
    return this.buckets.get(slot)?.length ?? 0;
  }

  peek(slot: number): TimerBucket | undefined {
    return this.buckets.get(slot);
  }

  /** Removes and returns the bucket of `slot`. */
  take(slot: number): TimerBucket | undefined {
    const bucket = this.buckets.get(slot);
    if (bucket === undefined) return undefined;
    this.buckets.delete(slot);
    this.pending -= bucket.length;
    return bucket;
  }

  /** Entries pending in the wheel. */
  get size(): number {
    return this.pending;
  }

  get slots(): number {
    return this.buckets.size;
  }

  /** The smallest non-empty slot, or undefined; O(slots). */
  firstSlot(): number | undefined {
    let first: number | undefined;
    for (const slot of this.buckets.keys()) if (first === undefined || slot < first) first = slot;
    return first;
  }

  /** The lowest queue offset pending in any bucket (infinity when empty); O(slots). */
  lowestOffset(): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (const bucket of this.buckets.values()) {
      const first = bucket.firstOffset;
      if (first < lowest) lowest = first;
    }
    return lowest;
  }

  /** Bytes held by the buckets' arrays. */
  arrayBytes(): number {
    let bytes = 0;
    for (const bucket of this.buckets.values()) bytes += bucket.bytes;
    return bytes;
  }

  clear(): void {
    this.buckets.clear();
    this.pending = 0;
  }
}
