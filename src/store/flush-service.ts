/**
 * Making commit-log bytes durable (upstream `GroupCommitService`, `FlushRealTimeService` and
 * `FlushDiskWatcher`).
 *
 * SYNC_FLUSH: every append that asked to wait is handed over after its write completed. Whenever no
 * fdatasync is running, one starts and takes every waiting append with it; each is acknowledged when
 * that fdatasync ends (PUT_OK if the flushed position covers it). Appends that arrive while it runs wait
 * for the next one, which starts as soon as it ends. So concurrent appends share fdatasyncs, and none
 * is acknowledged by an fdatasync that started before its bytes were written. An append still waiting
 * after `syncFlushTimeout` gets FLUSH_DISK_TIMEOUT (its bytes stay in the log).
 *
 * ASYNC_FLUSH: every `flushIntervalCommitLog` ms, fdatasync if at least `flushCommitLogLeastPages`
 * pages are dirty, or anything is dirty once `flushCommitLogThoroughInterval` has passed.
 */

import type { Clock, TimerHandle } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { MappedFileQueue } from './mapped-file-queue.js';
import { PutMessageStatus } from './put-message-result.js';

export interface GroupCommitRequest {
  /** Commit-log offset the flushed position must reach (end of the appends it stands for). */
  readonly nextOffset: number;
  readonly deadline: number;
  done: boolean;
  /**
   * Dropped once called: finished requests stay in the watch list for a while, and must not keep
   * the appends they acknowledged (and their results) alive meanwhile.
   */
  complete: ((status: PutMessageStatus) => void) | undefined;
}

export interface FlushHooks {
  /** After each successful flush; `storeTimestamp` of the last flushed file (0 if unknown). */
  onFlushed(storeTimestamp: number): void;
  /** An fdatasync failed: the store must stop accepting writes. */
  onFailure(err: unknown): void;
}

export class GroupCommitService {
  private readonly queue: MappedFileQueue;
  private readonly clock: Clock;
  private readonly syncFlushTimeout: number;
  private readonly hooks: FlushHooks;
  private waiting: GroupCommitRequest[] = [];
  /** Every request not yet timed out or completed, in deadline order (FlushDiskWatcher). */
  private watch: GroupCommitRequest[] = [];
  private watchHead = 0;
  private timer: TimerHandle | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private busy = false;
  private kickScheduled = false;
  /** Bytes were written without a waiter (WAIT=false) since the running sync started. */
  private wanted = false;
  private stopped = false;
  /** fdatasync calls started, for tests and the benchmark. */
  syncCount = 0;

  constructor(queue: MappedFileQueue, clock: Clock, syncFlushTimeout: number, hooks: FlushHooks) {
    this.queue = queue;
    this.clock = clock;
    this.syncFlushTimeout = syncFlushTimeout;
    this.hooks = hooks;
  }

  newRequest(nextOffset: number, complete: (status: PutMessageStatus) => void): GroupCommitRequest {
    return { nextOffset, deadline: this.clock.now() + this.syncFlushTimeout, done: false, complete };
  }

  putRequest(request: GroupCommitRequest): void {
    this.putRequests([request]);
  }

  /** Hands over every waiting append of one write at once, so they share the next fdatasync. */
  putRequests(requests: readonly GroupCommitRequest[]): void {
    for (const r of requests) {
      this.waiting.push(r);
      this.watch.push(r);
    }
    if (this.timer === undefined) this.armTimer();
    this.kick();
  }

  /** Written bytes with nobody waiting for them: flush them anyway, soon. */
  wakeup(): void {
    this.wanted = true;
    this.kick();
  }

  private kick(): void {
    if (this.busy || this.stopped || (this.waiting.length === 0 && !this.wanted)) return;
    this.busy = true;
    this.syncing = this.doCommit();
  }

  /** One fdatasync for everything waiting now. */
  private async doCommit(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    this.wanted = false;
    this.syncCount++;
    let flushed: number;
    try {
      flushed = await this.queue.flushAll();
    } catch (err) {
      for (const req of batch) this.finish(req, PutMessageStatus.FLUSH_DISK_TIMEOUT);
      for (const req of this.waiting) this.finish(req, PutMessageStatus.FLUSH_DISK_TIMEOUT);
      this.waiting = [];
      this.busy = false;
      this.hooks.onFailure(err);
      return;
    }
    for (const req of batch) {
      this.finish(
        req,
        flushed >= req.nextOffset ? PutMessageStatus.PUT_OK : PutMessageStatus.FLUSH_DISK_TIMEOUT,
      );
    }
    this.hooks.onFlushed(this.queue.getStoreTimestamp());
    this.dropFinished();
    this.busy = false;
    if (this.waiting.length > 0 || this.wanted) this.deferKick();
  }

  /**
   * Starts the next fdatasync one event-loop iteration later rather than at once: the appenders just
   * acknowledged usually append again within that iteration, and their writes then join this sync
   * instead of waiting a whole extra one. An append written meanwhile starts it earlier (putRequest).
   */
  private deferKick(): void {
    if (this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() =>
      setImmediate(() => {
        this.kickScheduled = false;
        this.kick();
      }),
    );
  }

  private finish(req: GroupCommitRequest, status: PutMessageStatus): void {
    const complete = req.complete;
    if (req.done || complete === undefined) return;
    req.done = true;
    req.complete = undefined;
    complete(status);
  }

  private dropFinished(): void {
    while (this.watchHead < this.watch.length && this.watch[this.watchHead]!.done) this.watchHead++;
    if (this.watchHead > 1024 && this.watchHead * 2 > this.watch.length) {
      this.watch = this.watch.slice(this.watchHead);
      this.watchHead = 0;
    }
  }

  private armTimer(): void {
    this.dropFinished();
    const head = this.watch[this.watchHead];
    if (head === undefined) {
      this.timer = undefined;
      return;
    }
    this.timer = this.clock.setTimeout(() => this.onTimer(), Math.max(0, head.deadline - this.clock.now()));
  }

  private onTimer(): void {
    this.timer = undefined;
    const now = this.clock.now();
    for (;;) {
      const head = this.watch[this.watchHead];
      if (head === undefined || (!head.done && head.deadline > now)) break;
      this.finish(head, PutMessageStatus.FLUSH_DISK_TIMEOUT);
      this.watchHead++;
    }
    if (!this.stopped) this.armTimer();
  }

  /** Runs the pending syncs to the end, then stops the watcher. */
  async shutdown(): Promise<void> {
    for (;;) {
      this.kick();
      if (!this.busy) break;
      await this.syncing;
    }
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }
}

export interface FlushRealTimeSettings {
  flushIntervalCommitLog: number;
  flushCommitLogLeastPages: number;
  flushCommitLogThoroughInterval: number;
}

export class FlushRealTimeService {
  private readonly queue: MappedFileQueue;
  private readonly clock: Clock;
  private readonly settings: FlushRealTimeSettings;
  private readonly hooks: FlushHooks;
  private readonly logger: Logger | undefined;
  private timer: TimerHandle | undefined;
  private lastFlushTimestamp = 0;
  private running: Promise<void> | undefined;
  private stopped = true;
  flushCount = 0;

  constructor(
    queue: MappedFileQueue,
    clock: Clock,
    settings: FlushRealTimeSettings,
    hooks: FlushHooks,
    logger?: Logger,
  ) {
    this.queue = queue;
    this.clock = clock;
    this.settings = settings;
    this.hooks = hooks;
    this.logger = logger;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lastFlushTimestamp = this.clock.now();
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      // Fixed rate: the next round is armed now; a round still running makes this one a no-op.
      this.schedule();
      if (this.running === undefined) {
        this.running = this.runOnce().finally(() => {
          this.running = undefined;
        });
      }
    }, this.settings.flushIntervalCommitLog);
  }

  /** One flush round: the dirty files from the flushed position on, as far as the pages rule allows. */
  async runOnce(): Promise<void> {
    let leastPages = this.settings.flushCommitLogLeastPages;
    const now = this.clock.now();
    if (now >= this.lastFlushTimestamp + this.settings.flushCommitLogThoroughInterval) {
      this.lastFlushTimestamp = now;
      leastPages = 0;
    }
    try {
      for (;;) {
        const before = this.queue.getFlushedWhere();
        const file = this.queue.findMappedFileByOffset(before, before === 0);
        if (file === undefined || !file.isAbleToFlush(leastPages)) break;
        this.flushCount++;
        await this.queue.flush(leastPages);
        const after = this.queue.getFlushedWhere();
        // Go on only when a full file was finished and the next may be dirty too.
        if (after === before || after !== file.fileFromOffset + file.fileSize) break;
      }
      const ts = this.queue.getStoreTimestamp();
      if (ts > 0) this.hooks.onFlushed(ts);
    } catch (err) {
      this.logger?.error('commit log flush failed', {
        error: err instanceof Error ? err.message : String(err),
      });
      this.hooks.onFailure(err);
    }
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    if (this.running !== undefined) await this.running;
  }
}
