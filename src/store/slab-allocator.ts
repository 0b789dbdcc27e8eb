/**
 * Buffers carved out of large slabs, for many short-lived buffers of a few KiB (pull bodies): a
 * Buffer of its own costs a memory allocation and V8's bookkeeping of external memory each time
 * (about a microsecond); a slice of a slab costs a view. A slab's memory is freed once no slice of it
 * is alive, as with Node's own pool for small buffers. Slices are never handed out twice.
 */
export class SlabAllocator {
  private slab: Buffer | undefined;
  private used = 0;

  /**
   * @param slabSize bytes per slab; a request over a quarter of it gets a buffer of its own, so that
   *   no slab is left mostly unused.
   */
  constructor(readonly slabSize: number) {}

  /** `size` bytes of uninitialised memory that no other slice shares. */
  alloc(size: number): Buffer {
    if (size > this.slabSize >>> 2) return Buffer.allocUnsafeSlow(size);
    let slab = this.slab;
    if (slab === undefined || this.slabSize - this.used < size) {
      slab = Buffer.allocUnsafeSlow(this.slabSize);
      this.slab = slab;
      this.used = 0;
    }
    const at = this.used;
    // Slices start 8-byte aligned, as Node's pool keeps them.
    this.used = (at + size + 7) & ~7;
    return slab.subarray(at, at + size);
  }
}
