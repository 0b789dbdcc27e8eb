/**
 * The slave's side of replication inside the commit log (upstream `CommitLog.appendData` plus the
 * slave's ReputMessageService): checks bytes a master sent before they are written, and tells which
 * records they complete so that those, and only those, are dispatched.
 *
 * Upstream appends whatever arrives and lets the reput find out later; here every record a frame
 * completes is checked first (magic code, PHYSICALOFFSET at its position, the fields adding up to
 * TOTALSIZE, the body CRC, a BLANK filling its file exactly), so that bytes which are not the
 * master's commit log never reach the slave's. A record split across frames is held in memory until
 * its rest arrives; its first part is already written and is cut off again if the rest fails.
 */
import { MIN_STORED_RECORD_SIZE } from '../common/message/stored-format.js';
import type { DelayLevelTable } from './delay-level.js';
import type { DispatchRequest } from './dispatch-request.js';
import { CheckedRecord, checkMessageAndReturnSize, RecordKind } from './stored-record-reader.js';

/** Largest record the parser waits for: a bigger TOTALSIZE in a header is damage, not a message. */
const RECORD_HEADROOM = 64 * 1024;

/** A record the frame completed: dispatched once the bytes are written. */
export interface ReplicaRecord {
  request: DispatchRequest;
  topic: string;
  queueId: number;
  queueOffset: number;
  sysFlag: number;
  storeTimestamp: number;
}

export type ReplicaCheck =
  | { ok: true; records: ReplicaRecord[] }
  | {
      ok: false;
      reason: string;
      /** Where the slave's log must be cut back to (the start of a record whose first part was written). */
      cutBackTo?: number;
    };

export class ReplicaRecordParser {
  /** Commit-log offset of the next record to check (may lie beyond the data while a BLANK is skipped). */
  private next = -1;
  /** Bytes of the record that starts at `next` and has not fully arrived. */
  private partial: Buffer | undefined;
  private readonly out = new CheckedRecord();

  constructor(
    private readonly fileSize: number,
    private readonly maxMessageSize: number,
    private readonly delayLevels: DelayLevelTable,
  ) {}

  /** Forgets any partial record: the next check starts at `offset`, a record boundary. */
  reset(offset: number): void {
    this.next = offset;
    this.partial = undefined;
  }

  /** Offset up to which every record was checked and handed out for dispatch. */
  get dispatchedTo(): number {
    return this.next;
  }

  /**
   * Checks `data`, which belongs at commit-log offset `at` (the slave's end), and returns the records
   * it completes. Nothing is remembered when the check fails.
   */
  check(at: number, data: Buffer): ReplicaCheck {
    if (this.next < 0) this.next = at;
    const held = this.partial;
    const heldBytes = held === undefined ? 0 : held.length;
    // Only a BLANK's filler can lie between the next record and the data.
    if (this.next > at + data.length) return { ok: true, records: [] };
    const start = this.next - (at - heldBytes);
    const buf = held === undefined ? data : Buffer.concat([held, data]);
    const base = at - heldBytes;
    const records: ReplicaRecord[] = [];
    const out = this.out;
    const options = { checkCRC: true, buildRequest: true, delayLevels: this.delayLevels };
    let pos = Math.max(0, start);
    let next = this.next;
    while (pos < buf.length) {
      const physicalOffset = base + pos;
      const fileRemaining = this.fileSize - (physicalOffset % this.fileSize);
      const available = buf.length - pos;
      if (available < 8) break;
      const totalSize = buf.readInt32BE(pos);
      const r = checkMessageAndReturnSize(buf, pos, available, physicalOffset, fileRemaining, options, out);
      if (r.kind === RecordKind.BLANK) {
        next = physicalOffset + r.size;
        pos = buf.length;
        break;
      }
      if (r.kind === RecordKind.MESSAGE && r.request !== undefined) {
        records.push({
          request: r.request,
          topic: r.topic,
          queueId: r.queueId,
          queueOffset: r.queueOffset,
          sysFlag: r.sysFlag,
          storeTimestamp: r.storeTimestamp,
        });
        pos += r.size;
        next = physicalOffset + r.size;
        continue;
      }
      const waiting =
        r.kind === RecordKind.CORRUPT &&
        r.reason.startsWith('need ') &&
        totalSize >= MIN_STORED_RECORD_SIZE &&
        totalSize <= this.maxMessageSize + RECORD_HEADROOM;
      if (waiting) break;
      let reason =
        r.kind === RecordKind.END ? 'zero bytes where a record should start' : r.reason || 'bad record';
      // Records and BLANKs are laid out for the master's file size: a different one shows here.
      if (/BLANK record|left in the file/.test(reason)) {
        reason += ` (is mappedFileSizeCommitLog ${this.fileSize} the master's too?)`;
      }
      return {
        ok: false,
        reason: `record at ${physicalOffset} does not check out: ${reason}`,
        ...(physicalOffset < at ? { cutBackTo: physicalOffset } : {}),
      };
    }
    this.next = next;
    this.partial = pos < buf.length ? Buffer.from(buf.subarray(pos)) : undefined;
    return { ok: true, records };
  }
}
