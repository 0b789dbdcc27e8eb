/**
 * What the commit log does after a write refused for space (disk full, quota, file-size limit): such
 * a write lost nothing acknowledged and left the files writable, so rather than refusing for good as
 * after EIO, appends are refused with upstream's disk-full answer for a retry interval (upstream
 * re-checks the disk every cleanResourceInterval) and then tried again from the last good position.
 */
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { PendingAppend, WriteSegment } from './commit-log-types.js';
import type { TopicQueueTable } from './topic-queue-table.js';

/** Upstream re-checks disk space every cleanResourceInterval [10 s]; a write out of space waits as long. */
export const DEFAULT_DISK_FULL_RETRY_INTERVAL = 10_000;

export class DiskFullGuard {
  /** The write that ran out of space, while the episode lasts (until a write succeeds again). */
  private failure: Error | undefined;
  private refusedUntil = 0;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly retryInterval: number,
  ) {}

  /** Within the wait after a write ran out of space: appends are refused as on a full disk. */
  refusing(): boolean {
    return this.failure !== undefined && this.clock.now() < this.refusedUntil;
  }

  /**
   * A write of `segments` failed for space after the first `done` ones. The queue offsets the
   * unwritten appends took go back to `queueOffsets`, so the queues stay gapless, and the bytes the
   * failed write may have left past the write position are zeroed: recovery (normal or not) would take
   * whole records there for stored messages, with queue offsets just given back to others.
   */
  outOfSpace(
    err: unknown,
    taken: readonly PendingAppend[],
    segments: readonly WriteSegment[],
    queueOffsets: TopicQueueTable,
  ): void {
    const giveBack = new Map<string, { topic: string; queueId: number; next: number }>();
    for (const p of taken) {
      const seg = p.segment >= 0 ? segments[p.segment] : undefined;
      if (seg === undefined || seg.done) continue;
      const item = p.item;
      if (item.kind === 0 && !item.consumesQueueOffset) continue;
      const key = `${item.topic}\u0000${item.queueId}`;
      const known = giveBack.get(key);
      if (known === undefined || p.queueOffset < known.next)
        giveBack.set(key, { topic: item.topic, queueId: item.queueId, next: p.queueOffset });
    }
    for (const q of giveBack.values()) queueOffsets.set(q.topic, q.queueId, q.next);
    const failed = segments.find((seg) => !seg.done);
    if (failed !== undefined) {
      try {
        failed.file.writeSync(failed.filePosition, Buffer.alloc(failed.end - failed.start));
      } catch {
        // Refused again where the space ends: what was accepted before that point is zero now.
      }
    }
    this.refusedUntil = this.clock.now() + this.retryInterval;
    if (this.failure !== undefined) return;
    this.failure = err instanceof Error ? err : new Error(String(err));
    this.log.error('commit log disk full: a write ran out of space; refusing appends until space returns', {
      error: this.failure.message,
      retryIntervalMs: this.retryInterval,
    });
  }

  /** A write went through: an episode of running out of space, if any, is over. */
  wrote(): void {
    if (this.failure === undefined) return;
    this.log.info('commit log writes succeed again after running out of space');
    this.failure = undefined;
  }
}
