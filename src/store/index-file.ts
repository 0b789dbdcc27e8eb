/**
 * IndexFile: one hash index file of message keys in upstream's layout (store/index/IndexFile.java and
 * IndexHeader.java, 4.9.8):
 *
 *   header  40 bytes: beginTimestamp int64 | endTimestamp int64 | beginPhyOffset int64 |
 *                     endPhyOffset int64 | hashSlotCount int32 | indexCount int32
 *   slots   hashSlotNum × int32: number of the newest entry whose key hashes to the slot (0: none)
 *   entries indexNum × 20 bytes: keyHash int32 | phyOffset int64 | timeDiff int32 (seconds since
 *           beginTimestamp) | prevIndex int32 (older entry of the same slot, 0: none)
 *
 * Entry numbers start at 1 (indexCount starts at 1). The file being written keeps its slot table in
 * memory and buffers new entries; `commit()` writes entries, then changed slots, then the header, so
 * the file on disk is always a consistent earlier state (entries past the header's count are
 * ignored by readers).
 */

import { ValidationError } from '../common/errors.js';
import { indexKeyHash } from '../common/message/tag-hash.js';
import { SegmentFile, SegmentFileError } from './segment-files.js';

export const INDEX_HEADER_SIZE = 40;
export const INDEX_HASH_SLOT_SIZE = 4;
export const INDEX_ENTRY_SIZE = 20;
/** Byte positions of the header fields. */
export const IndexHeaderField = {
  BEGIN_TIMESTAMP: 0,
  END_TIMESTAMP: 8,
  BEGIN_PHY_OFFSET: 16,
  END_PHY_OFFSET: 24,
  HASH_SLOT_COUNT: 32,
  INDEX_COUNT: 36,
} as const;

const INVALID_INDEX = 0;
const TWO_32 = 4294967296;
const INT_MAX = 0x7fffffff;
/** Entries buffered before they are written even within one turn. */
const PENDING_ENTRIES = 1024;
/** Changed slots remembered before a commit is forced. */
const MAX_DIRTY_SLOTS = 16384;
/** Changed slots closer than this (in slots) are written with one write, unchanged ones included. */
const SLOT_COALESCE_GAP = 1024;

/** Bytes of an index file with these dimensions. */
export function indexFileSize(hashSlotNum: number, indexNum: number): number {
  return INDEX_HEADER_SIZE + hashSlotNum * INDEX_HASH_SLOT_SIZE + indexNum * INDEX_ENTRY_SIZE;
}

export function validateIndexDimensions(hashSlotNum: number, indexNum: number): void {
  if (!Number.isInteger(hashSlotNum) || hashSlotNum < 1 || hashSlotNum > INT_MAX) {
    throw new ValidationError(`maxHashSlotNum ${hashSlotNum} must be a positive int32`);
  }
  if (!Number.isInteger(indexNum) || indexNum < 2 || indexNum > INT_MAX) {
    throw new ValidationError(`maxIndexNum ${indexNum} must be an int32 of at least 2`);
  }
  if (!Number.isSafeInteger(indexFileSize(hashSlotNum, indexNum))) {
    throw new ValidationError('index file size is too large');
  }
}

export class IndexFile {
  readonly hashSlotNum: number;
  readonly indexNum: number;
  private readonly file: SegmentFile;
  private beginTimestamp: number;
  private endTimestamp: number;
  // Commit-log offsets as numbers: exact below 2^53, which no commit log reaches.
  private beginPhyOffset: number;
  private endPhyOffset: number;
  private hashSlotCount: number;
  private indexCount: number;
  /** Slot table in memory while the file is written; undefined for files only read. */
  private slots: Buffer | undefined;
  private slotsView: DataView | undefined;
  /** Slots on disk are all zero (a new file), so loading them is not needed. */
  private slotsOnDiskEmpty: boolean;
  private dirtySlots: number[] = [];
  private pending: Buffer | undefined;
  private pendingView: DataView | undefined;
  /** Entry number of pending[0]; entries before it are on disk. */
  private pendingFrom: number;
  private pendingCount = 0;
  private headerDirty = false;
  private readonly headerBuf = Buffer.alloc(INDEX_HEADER_SIZE);
  private readonly readBuf = Buffer.alloc(INDEX_ENTRY_SIZE);

  private constructor(
    file: SegmentFile,
    hashSlotNum: number,
    indexNum: number,
    header: Buffer,
    fresh: boolean,
  ) {
    this.file = file;
    this.hashSlotNum = hashSlotNum;
    this.indexNum = indexNum;
    this.beginTimestamp = Number(header.readBigInt64BE(IndexHeaderField.BEGIN_TIMESTAMP));
    this.endTimestamp = Number(header.readBigInt64BE(IndexHeaderField.END_TIMESTAMP));
    this.beginPhyOffset = Number(header.readBigInt64BE(IndexHeaderField.BEGIN_PHY_OFFSET));
    this.endPhyOffset = Number(header.readBigInt64BE(IndexHeaderField.END_PHY_OFFSET));
    this.hashSlotCount = header.readInt32BE(IndexHeaderField.HASH_SLOT_COUNT);
    const count = header.readInt32BE(IndexHeaderField.INDEX_COUNT);
    this.indexCount = count <= 0 ? 1 : count;
    this.pendingFrom = this.indexCount;
    this.slotsOnDiskEmpty = fresh;
  }

  /**
   * Creates `dir/name` full size (sparse). As upstream, a file following a full one starts with that
   * file's end offset and end time as both its begin and end values.
   */
  static create(
    dir: string,
    name: string,
    hashSlotNum: number,
    indexNum: number,
    endPhyOffset: bigint,
    endTimestamp: bigint,
  ): IndexFile {
    validateIndexDimensions(hashSlotNum, indexNum);
    const header = Buffer.alloc(INDEX_HEADER_SIZE);
    if (endPhyOffset > 0n) {
      header.writeBigInt64BE(endPhyOffset, IndexHeaderField.BEGIN_PHY_OFFSET);
      header.writeBigInt64BE(endPhyOffset, IndexHeaderField.END_PHY_OFFSET);
    }
    if (endTimestamp > 0n) {
      header.writeBigInt64BE(endTimestamp, IndexHeaderField.BEGIN_TIMESTAMP);
      header.writeBigInt64BE(endTimestamp, IndexHeaderField.END_TIMESTAMP);
    }
    const file = SegmentFile.create(dir, name, indexFileSize(hashSlotNum, indexNum));
    try {
      file.writeSync(0, header, 0, INDEX_HEADER_SIZE);
    } catch (err) {
      file.destroy();
      throw err;
    }
    return new IndexFile(file, hashSlotNum, indexNum, header, true);
  }

  /** Opens an existing file, which must have exactly the size these dimensions give. */
  static open(path: string, hashSlotNum: number, indexNum: number): IndexFile {
    validateIndexDimensions(hashSlotNum, indexNum);
    const file = SegmentFile.open(path, indexFileSize(hashSlotNum, indexNum));
    const header = Buffer.alloc(INDEX_HEADER_SIZE);
    try {
      file.read(header, 0, INDEX_HEADER_SIZE, 0);
      const count = header.readInt32BE(IndexHeaderField.INDEX_COUNT);
      if (count > indexNum) {
        throw new SegmentFileError(path, `index count ${count} exceeds maxIndexNum ${indexNum}`, 36);
      }
    } catch (err) {
      file.close();
      throw err;
    }
    return new IndexFile(file, hashSlotNum, indexNum, header, false);
  }

  get fileName(): string {
    return this.file.fileName;
  }

  getBeginTimestamp(): bigint {
    return BigInt(this.beginTimestamp);
  }

  getEndTimestamp(): bigint {
    return BigInt(this.endTimestamp);
  }

  getBeginPhyOffset(): bigint {
    return BigInt(this.beginPhyOffset);
  }

  getEndPhyOffset(): bigint {
    return BigInt(this.endPhyOffset);
  }

  /** getEndPhyOffset as a number. */
  getEndPhyOffsetNumber(): number {
    return this.endPhyOffset;
  }

  getHashSlotCount(): number {
    return this.hashSlotCount;
  }

  /** Next entry number (1 for an empty file). */
  getIndexCount(): number {
    return this.indexCount;
  }

  isWriteFull(): boolean {
    return this.indexCount >= this.indexNum;
  }

  private slotTable(): Buffer {
    if (this.slots === undefined) {
      const slots = Buffer.alloc(this.hashSlotNum * INDEX_HASH_SLOT_SIZE);
      if (!this.slotsOnDiskEmpty) this.file.read(slots, 0, slots.length, INDEX_HEADER_SIZE);
      this.slots = slots;
      this.slotsView = new DataView(slots.buffer, slots.byteOffset, slots.length);
    }
    return this.slots;
  }

  private entryPosition(index: number): number {
    return INDEX_HEADER_SIZE + this.hashSlotNum * INDEX_HASH_SLOT_SIZE + index * INDEX_ENTRY_SIZE;
  }

  /**
   * Adds `key` (already `topic#key`) for the record at `phyOffset` stored at `storeTimestamp` ms.
   * False when the file is full (upstream `putKey`).
   */
  putKey(key: string, phyOffset: bigint, storeTimestamp: bigint): boolean {
    return this.putKeyHash(indexKeyHash(key), Number(phyOffset), Number(storeTimestamp));
  }

  /** putKey for a key whose indexKeyHash is `keyHash`; `storeTimestamp` in ms. */
  putKeyHash(keyHash: number, phyOffset: number, storeTimestamp: number): boolean {
    if (this.indexCount >= this.indexNum) return false;
    const slotPos = keyHash % this.hashSlotNum;
    this.slotTable();
    // DataView accesses skip the argument checks of Buffer.readInt32BE / writeInt32BE.
    const slots = this.slotsView as DataView;
    let slotValue = slots.getInt32(slotPos * INDEX_HASH_SLOT_SIZE);
    // Upstream tests `> indexCount`; a slot equal to the count (left by a crash between the slot and
    // header writes) names the entry about to be written, so it is no chain either.
    if (slotValue <= INVALID_INDEX || slotValue >= this.indexCount) slotValue = INVALID_INDEX;

    const ts = storeTimestamp;
    if (this.indexCount <= 1) {
      // Ours: the begin values move to the first entry before its time diff is taken. Upstream takes
      // the diff first, so in a file that follows a full one the first entry is measured from the
      // previous file's end yet read back from its own time, and reads as later than it was.
      this.beginPhyOffset = phyOffset;
      this.beginTimestamp = ts;
    }
    let timeDiff = Math.trunc((ts - this.beginTimestamp) / 1000);
    if (this.beginTimestamp <= 0) timeDiff = 0;
    else if (timeDiff > INT_MAX) timeDiff = INT_MAX;
    else if (timeDiff < 0) timeDiff = 0;

    if (this.pending === undefined) {
      this.pending = Buffer.allocUnsafe(PENDING_ENTRIES * INDEX_ENTRY_SIZE);
      // DataView stores skip the argument checks of Buffer.write*BE (a tenth of the dispatch's time).
      this.pendingView = new DataView(this.pending.buffer, this.pending.byteOffset, this.pending.length);
    }
    if (this.pendingCount === PENDING_ENTRIES) this.writePendingEntries();
    const at = this.pendingCount * INDEX_ENTRY_SIZE;
    const p = this.pendingView!;
    p.setInt32(at, keyHash);
    p.setInt32(at + 4, Math.floor(phyOffset / TWO_32));
    p.setInt32(at + 8, phyOffset | 0);
    p.setInt32(at + 12, timeDiff);
    p.setInt32(at + 16, slotValue);
    this.pendingCount++;

    slots.setInt32(slotPos * INDEX_HASH_SLOT_SIZE, this.indexCount);
    this.dirtySlots.push(slotPos);

    if (slotValue === INVALID_INDEX) this.hashSlotCount++;
    this.indexCount++;
    this.endPhyOffset = phyOffset;
    this.endTimestamp = ts;
    this.headerDirty = true;
    if (this.dirtySlots.length >= MAX_DIRTY_SLOTS) this.commit();
    return true;
  }

  private writePendingEntries(): void {
    if (this.pending === undefined || this.pendingCount === 0) return;
    this.file.writeSync(
      this.entryPosition(this.pendingFrom),
      this.pending,
      0,
      this.pendingCount * INDEX_ENTRY_SIZE,
    );
    this.pendingFrom += this.pendingCount;
    this.pendingCount = 0;
  }

  /** Writes buffered entries, then changed slots, then the header. */
  commit(): void {
    this.writePendingEntries();
    const slots = this.slots;
    if (slots !== undefined && this.dirtySlots.length > 0) {
      const dirty = this.dirtySlots.sort((a, b) => a - b);
      let runStart = dirty[0] as number;
      let runEnd = runStart;
      const writeRun = (): void => {
        const from = runStart * INDEX_HASH_SLOT_SIZE;
        const to = (runEnd + 1) * INDEX_HASH_SLOT_SIZE;
        this.file.writeSync(INDEX_HEADER_SIZE + from, slots, from, to - from);
      };
      for (let i = 1; i < dirty.length; i++) {
        const s = dirty[i] as number;
        if (s - runEnd <= SLOT_COALESCE_GAP) {
          runEnd = s;
        } else {
          writeRun();
          runStart = s;
          runEnd = s;
        }
      }
      writeRun();
      this.dirtySlots = [];
    }
    if (this.headerDirty) {
      const h = this.headerBuf;
      h.writeBigInt64BE(BigInt(this.beginTimestamp), IndexHeaderField.BEGIN_TIMESTAMP);
      h.writeBigInt64BE(BigInt(this.endTimestamp), IndexHeaderField.END_TIMESTAMP);
      h.writeBigInt64BE(BigInt(this.beginPhyOffset), IndexHeaderField.BEGIN_PHY_OFFSET);
      h.writeBigInt64BE(BigInt(this.endPhyOffset), IndexHeaderField.END_PHY_OFFSET);
      h.writeInt32BE(this.hashSlotCount, IndexHeaderField.HASH_SLOT_COUNT);
      h.writeInt32BE(this.indexCount, IndexHeaderField.INDEX_COUNT);
      this.file.writeSync(0, h, 0, INDEX_HEADER_SIZE);
      this.headerDirty = false;
    }
  }

  /** Whether something is buffered that commit() would write. */
  get dirty(): boolean {
    return this.pendingCount > 0 || this.dirtySlots.length > 0 || this.headerDirty;
  }

  /** commit() then fdatasync. */
  async flush(): Promise<void> {
    this.commit();
    await this.file.datasync();
  }

  /** Drops the in-memory slot table of a file no longer written (it is reread from disk if needed). */
  releaseMemory(): void {
    if (this.dirty) this.commit();
    this.slots = undefined;
    this.slotsView = undefined;
    this.slotsOnDiskEmpty = false;
    this.pending = undefined;
  }

  /** Upstream `isTimeMatched`: [begin, end] overlaps the file's time range. */
  isTimeMatched(begin: bigint, end: bigint): boolean {
    const b = Number(begin);
    const e = Number(end);
    return (
      (b < this.beginTimestamp && e > this.endTimestamp) ||
      (b >= this.beginTimestamp && b <= this.endTimestamp) ||
      (e >= this.beginTimestamp && e <= this.endTimestamp)
    );
  }

  private readSlot(slotPos: number): number {
    if (this.slots !== undefined) return this.slots.readInt32BE(slotPos * INDEX_HASH_SLOT_SIZE);
    const buf = this.readBuf;
    this.file.read(buf, 0, INDEX_HASH_SLOT_SIZE, INDEX_HEADER_SIZE + slotPos * INDEX_HASH_SLOT_SIZE);
    return buf.readInt32BE(0);
  }

  /** The 20 bytes of entry `index` (from the buffer when not yet written). */
  private readEntry(index: number): Buffer {
    const buf = this.readBuf;
    if (
      this.pending !== undefined &&
      index >= this.pendingFrom &&
      index < this.pendingFrom + this.pendingCount
    ) {
      const at = (index - this.pendingFrom) * INDEX_ENTRY_SIZE;
      this.pending.copy(buf, 0, at, at + INDEX_ENTRY_SIZE);
    } else {
      this.file.read(buf, 0, INDEX_ENTRY_SIZE, this.entryPosition(index));
    }
    return buf;
  }

  /**
   * Appends to `phyOffsets` the offsets of entries for `key` stored within [begin, end] ms, newest
   * first, until `maxNum` are collected (upstream `selectPhyOffset`). Entries whose hash matches but
   * whose key differs (a collision) are included, as upstream; the caller checks the message keys.
   */
  selectPhyOffset(phyOffsets: bigint[], key: string, maxNum: number, begin: bigint, end: bigint): void {
    const keyHash = indexKeyHash(key);
    const slotPos = keyHash % this.hashSlotNum;
    const slotValue = this.readSlot(slotPos);
    if (slotValue <= INVALID_INDEX || slotValue >= this.indexCount || this.indexCount <= 1) return;
    const b = Number(begin);
    const e = Number(end);
    for (let next = slotValue; ; ) {
      if (phyOffsets.length >= maxNum) break;
      const entry = this.readEntry(next);
      const keyHashRead = entry.readInt32BE(0);
      const phyOffsetRead = entry.readBigInt64BE(4);
      const timeDiff = entry.readInt32BE(12);
      const prevIndexRead = entry.readInt32BE(16);
      if (timeDiff < 0) break;
      const timeRead = this.beginTimestamp + timeDiff * 1000;
      if (keyHash === keyHashRead && timeRead >= b && timeRead <= e) phyOffsets.push(phyOffsetRead);
      // Chains only ever point to older entries; anything else is damage and ends the walk.
      if (prevIndexRead <= INVALID_INDEX || prevIndexRead >= next || timeRead < b) break;
      next = prevIndexRead;
    }
  }

  close(): void {
    try {
      if (this.dirty) this.commit();
    } finally {
      this.file.close();
    }
  }

  /** Deletes the file. */
  destroy(): void {
    this.dirtySlots = [];
    this.pendingCount = 0;
    this.headerDirty = false;
    this.file.destroy();
  }
}
