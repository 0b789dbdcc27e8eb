/**
 * Progress of a commit-log recovery scan, for an operator watching a large store come back. The scan
 * is synchronous, so nothing can poll it: the scanner calls `tick` as it reads each chunk and the
 * meter reports at most once per `interval` of the store's clock.
 */
import type { MappedFile } from './mapped-file.js';

/** ms between two progress reports of one recovery [1 s]; rocketmq-ts only (upstream reports none). */
export const DEFAULT_RECOVERY_PROGRESS_INTERVAL = 1000;

export interface RecoveryProgress {
  /** Bytes of commit log scanned so far. */
  scannedBytes: number;
  /**
   * Bytes the scan may cover: the files from where it starts, each counted as far as the file system
   * has allocated it (a preallocated or sparse tail file is not counted as data).
   */
  totalBytes: number;
  /** ms since the scan started. */
  elapsedMs: number;
  /** The last report of this recovery (sent only if an earlier report was). */
  done: boolean;
}

export type RecoveryProgressListener = (progress: RecoveryProgress) => void;

/** Bytes a scan of `files` starting at commit-log offset `fromOffset` may read. */
export function bytesToScan(files: readonly MappedFile[], fromOffset: number): number {
  let bytes = 0;
  for (const f of files) {
    const end = f.fileFromOffset + f.fileSize;
    if (end <= fromOffset) continue;
    const skipped = Math.max(0, fromOffset - f.fileFromOffset);
    bytes += Math.max(0, Math.min(f.fileSize, f.allocatedBytes()) - skipped);
  }
  return bytes;
}

export class RecoveryProgressMeter {
  private readonly startedAt: number;
  private lastReportAt: number;
  private reported = false;

  constructor(
    private readonly fromOffset: number,
    private readonly totalBytes: number,
    private readonly now: () => number,
    private readonly interval: number,
    private readonly listener: RecoveryProgressListener,
  ) {
    this.startedAt = now();
    this.lastReportAt = this.startedAt;
  }

  /** The scan has reached commit-log offset `offset`. */
  tick(offset: number): void {
    const t = this.now();
    if (t - this.lastReportAt < this.interval) return;
    this.lastReportAt = t;
    this.report(offset, t, false);
  }

  /** The scan ended at `offset`; reported only when something was, so a quick recovery stays silent. */
  finish(offset: number): void {
    if (this.reported) this.report(offset, this.now(), true);
  }

  private report(offset: number, t: number, done: boolean): void {
    this.reported = true;
    const scannedBytes = Math.max(0, offset - this.fromOffset);
    this.listener({
      scannedBytes,
      // A scan that outruns the estimate (e.g. files the file system reports lazily) never shows > 100 %.
      totalBytes: Math.max(this.totalBytes, scannedBytes),
      elapsedMs: t - this.startedAt,
      done,
    });
  }
}
