/**
 * ConsumeQueueStore: every consume queue of the store (upstream DefaultMessageStore's
 * consumeQueueTable with loadConsumeQueue, findConsumeQueue, recoverConsumeQueue,
 * recoverTopicQueueTable, CommitLogDispatcherBuildConsumeQueue, CleanConsumeQueueService and
 * FlushConsumeQueueService). Topic and queueId are validated before any path is built, so no name
 * can reach outside `<root>/consumequeue` (CVE-2019-17572).
 */

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock, type TimerHandle } from '../common/clock.js';
import { createLogger, type Logger } from '../common/logger.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
import { TopicValidator, validateTopic } from '../common/validators.js';
import type { MessageStoreConfig } from './config.js';
import { StorePath } from './config.js';
import { ConsumeQueue } from './consume-queue.js';
import { validateConsumeQueueFileSize, validateQueueId } from './consume-queue-entry.js';
import type { DispatchBatch, DispatchRequest } from './dispatch-request.js';

const LMQ_PREFIX = '%LMQ%';

export type ConsumeQueueStoreConfig = Pick<
  MessageStoreConfig,
  | 'storePathRootDir'
  | 'mappedFileSizeConsumeQueue'
  | 'flushIntervalConsumeQueue'
  | 'flushConsumeQueueLeastPages'
  | 'flushConsumeQueueThoroughInterval'
>;

/** What a flush run did; `flushLeastPages === 0` means every dirty byte was synced (a "thorough" run). */
export interface ConsumeQueueFlushInfo {
  flushLeastPages: number;
  /**
   * Store timestamp of the last entry dispatched before the run started (0 when none): once a
   * thorough run ends, every entry up to it is on disk, so the checkpoint may record it as
   * `logicsMsgTimestamp`.
   */
  logicsMsgTimestamp: bigint;
}

export interface ConsumeQueueStoreOptions {
  clock?: Clock;
  logger?: Logger;
  /** See ConsumeQueueOptions.autoCommit. */
  autoCommit?: boolean;
  /** Called after each flush run of the flush service (upstream writes the checkpoint here). */
  afterFlush?: (info: ConsumeQueueFlushInfo) => void | Promise<void>;
}

export interface QueueRef {
  topic: string;
  queueId: number;
}

export class ConsumeQueueStore {
  /** `<storePathRootDir>/consumequeue`. */
  readonly storePath: string;
  private readonly config: ConsumeQueueStoreConfig;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly autoCommit: boolean;
  private readonly afterFlush: ((info: ConsumeQueueFlushInfo) => void | Promise<void>) | undefined;
  private readonly table = new Map<string, Map<number, ConsumeQueue>>();
  private logicsMsgTimestamp = 0n;
  private lastPhysicalMinOffset = 0n;
  private lastThoroughFlush = 0;
  private timer: TimerHandle | undefined;
  private running = false;
  private currentRun: Promise<void> = Promise.resolve();

  constructor(config: ConsumeQueueStoreConfig, options: ConsumeQueueStoreOptions = {}) {
    validateConsumeQueueFileSize(config.mappedFileSizeConsumeQueue);
    this.config = config;
    this.storePath = StorePath.consumeQueue(config.storePathRootDir);
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? createLogger('store.consumeQueue');
    this.autoCommit = options.autoCommit ?? true;
    this.afterFlush = options.afterFlush;
  }

  private newQueue(topic: string, queueId: number): ConsumeQueue {
    return new ConsumeQueue(topic, queueId, {
      storePath: this.storePath,
      mappedFileSize: this.config.mappedFileSizeConsumeQueue,
      logger: this.log,
      autoCommit: this.autoCommit,
    });
  }

  /**
   * Opens every queue under consumequeue/ (upstream `loadConsumeQueue`). Directories whose names are
   * not a valid topic or a queueId are skipped with a warning; a malformed file stops the load with
   * a SegmentFileError naming it. Call `recover()` next.
   */
  load(): void {
    if (!existsSync(this.storePath)) return;
    try {
      this.loadQueues();
    } catch (err) {
      for (const cq of this.queues()) cq.close();
      this.table.clear();
      throw err;
    }
  }

  private loadQueues(): void {
    for (const topicEntry of readdirSync(this.storePath, { withFileTypes: true })) {
      const topic = topicEntry.name;
      if (!topicEntry.isDirectory()) continue;
      try {
        validateTopic(topic);
      } catch {
        this.log.warn('skipping consume queue directory that is not a topic', {
          dir: join(this.storePath, topic),
        });
        continue;
      }
      for (const queueEntry of readdirSync(join(this.storePath, topic), { withFileTypes: true })) {
        if (!queueEntry.isDirectory()) continue;
        const name = queueEntry.name;
        const queueId = /^\d{1,10}$/.test(name) ? Number(name) : Number.NaN;
        try {
          validateQueueId(queueId);
        } catch {
          this.log.warn('skipping consume queue directory that is not a queueId', {
            dir: join(this.storePath, topic, name),
          });
          continue;
        }
        const cq = this.newQueue(topic, queueId);
        this.put(cq);
        cq.load();
      }
    }
  }

  /** Recovers every queue; returns the largest commit-log end they reference (-1 if none). */
  recover(): bigint {
    let max = -1n;
    for (const cq of this.queues()) {
      cq.recover();
      if (cq.getMaxPhysicOffset() > max) max = cq.getMaxPhysicOffset();
    }
    return max;
  }

  private put(cq: ConsumeQueue): void {
    let map = this.table.get(cq.topic);
    if (map === undefined) {
      map = new Map();
      this.table.set(cq.topic, map);
    }
    map.set(cq.queueId, cq);
  }

  /** The queue, created (without touching the disk) when missing. Throws ValidationError for a bad name. */
  findConsumeQueue(topic: string, queueId: number): ConsumeQueue {
    const existing = this.table.get(topic)?.get(queueId);
    if (existing !== undefined) return existing;
    const cq = this.newQueue(topic, queueId);
    this.put(cq);
    return cq;
  }

  getConsumeQueue(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.table.get(topic)?.get(queueId);
  }

  /** Queues of one topic by queueId. */
  topicQueues(topic: string): ReadonlyMap<number, ConsumeQueue> | undefined {
    return this.table.get(topic);
  }

  *queues(): IterableIterator<ConsumeQueue> {
    for (const map of this.table.values()) yield* map.values();
  }

  /**
   * The consume-queue dispatcher (upstream CommitLogDispatcherBuildConsumeQueue + wrapper): prepared
   * and rolled-back transaction records get no entry. Throws SegmentFileError when the queue cannot
   * be written (the store should stop accepting messages, as upstream's makeLogicsQueueError).
   */
  dispatch(request: DispatchRequest): void {
    const tranType = getTransactionValue(request.sysFlag);
    if (
      tranType === MessageSysFlag.TRANSACTION_PREPARED_TYPE ||
      tranType === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE
    ) {
      return;
    }
    const cq = this.findConsumeQueue(request.topic, request.queueId);
    if (cq.putMessagePositionInfo(request)) this.logicsMsgTimestamp = request.storeTimestamp;
  }

  /** A batch's records, all in one queue: as dispatch() for each, with one queue lookup. */
  dispatchBatch(batch: DispatchBatch): void {
    const tranType = getTransactionValue(batch.sysFlag);
    if (
      tranType === MessageSysFlag.TRANSACTION_PREPARED_TYPE ||
      tranType === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE
    ) {
      return;
    }
    const cq = this.findConsumeQueue(batch.topic, batch.queueId);
    if (cq.putBatchPositionInfo(batch)) this.logicsMsgTimestamp = BigInt(batch.storeTimestamp);
  }

  /** Store time of the last entry dispatched (what upstream keeps in the checkpoint's logicsMsgTimestamp). */
  getLogicsMsgTimestamp(): bigint {
    return this.logicsMsgTimestamp;
  }

  /** Largest commit-log end referenced by any queue (-1 if none): where the reput may resume. */
  getMaxPhysicOffset(): bigint {
    let max = -1n;
    for (const cq of this.queues()) if (cq.getMaxPhysicOffset() > max) max = cq.getMaxPhysicOffset();
    return max;
  }

  /** After commit-log recovery: drop entries pointing at or past its end (upstream `truncateDirtyLogicFiles`). */
  truncateDirtyLogicFiles(phyOffset: bigint): void {
    for (const cq of this.queues()) cq.truncateDirtyLogicFiles(phyOffset);
  }

  /**
   * Upstream `recoverTopicQueueTable`: corrects every queue's minimum against the commit log's and
   * returns `topic-queueId` -> next queue offset for the commit log's topicQueueTable.
   */
  recoverTopicQueueTable(minPhyOffset: bigint): Map<string, bigint> {
    const table = new Map<string, bigint>();
    for (const cq of this.queues()) {
      table.set(`${cq.topic}-${cq.queueId}`, cq.getMaxOffsetInQueue());
      cq.correctMinOffset(minPhyOffset);
    }
    return table;
  }

  /** Upstream CleanConsumeQueueService: delete files wholly below the commit log's new minimum. */
  deleteExpiredFiles(minPhyOffset: bigint): number {
    if (minPhyOffset <= this.lastPhysicalMinOffset) return 0;
    this.lastPhysicalMinOffset = minPhyOffset;
    let count = 0;
    for (const cq of this.queues()) count += cq.deleteExpiredFile(minPhyOffset);
    return count;
  }

  /**
   * Upstream `cleanExpiredConsumerQueue`: destroys queues whose last entry is below the commit log's
   * minimum (not SCHEDULE_TOPIC_XXXX). Returns them so the commit log can forget their offsets.
   */
  cleanExpiredConsumerQueue(minCommitLogOffset: bigint): QueueRef[] {
    const removed: QueueRef[] = [];
    for (const [topic, map] of this.table) {
      if (topic === TopicValidator.RMQ_SYS_SCHEDULE_TOPIC) continue;
      for (const [queueId, cq] of map) {
        const last = cq.getLastOffset();
        if (last !== -1n && last < minCommitLogOffset) {
          this.log.info('consume queue destroyed as expired', { topic, queueId, last, minCommitLogOffset });
          cq.destroy();
          map.delete(queueId);
          removed.push({ topic, queueId });
        }
      }
      if (map.size === 0) this.table.delete(topic);
    }
    return removed;
  }

  /**
   * Upstream `cleanUnusedTopic`: destroys the queues of topics not in `keep` (system schedule and
   * transaction-op topics and LMQ topics are always kept). Returns the removed queues.
   */
  cleanUnusedTopic(keep: ReadonlySet<string>): QueueRef[] {
    const removed: QueueRef[] = [];
    for (const [topic, map] of this.table) {
      if (
        keep.has(topic) ||
        topic === TopicValidator.RMQ_SYS_SCHEDULE_TOPIC ||
        topic === TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC ||
        topic.startsWith(LMQ_PREFIX)
      ) {
        continue;
      }
      for (const [queueId, cq] of map) {
        cq.destroy();
        removed.push({ topic, queueId });
      }
      this.table.delete(topic);
    }
    return removed;
  }

  /** Writes what every queue buffers in memory. */
  commitAll(): void {
    for (const cq of this.queues()) cq.commit();
  }

  /** fdatasync of every queue with enough dirty pages (0: everything dirty). Rejects with the first failure. */
  async flushAll(flushLeastPages = 0): Promise<void> {
    let first: unknown;
    for (const cq of [...this.queues()]) {
      try {
        await cq.flush(flushLeastPages);
      } catch (err) {
        first ??= err;
      }
    }
    if (first !== undefined) throw first;
  }

  // ---------------------------------------------------------------- flush service

  /** Starts the interval flush (upstream FlushConsumeQueueService), driven by the clock. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastThoroughFlush = this.clock.now();
    this.schedule();
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.currentRun = this.flushRun(false)
        .catch((err: unknown) => {
          this.log.warn('consume queue flush failed', {
            error: err instanceof Error ? err.message : String(err),
          });
        })
        .finally(() => {
          if (this.running) this.schedule();
        });
    }, this.config.flushIntervalConsumeQueue);
  }

  private async flushRun(final: boolean): Promise<void> {
    let flushLeastPages = final ? 0 : this.config.flushConsumeQueueLeastPages;
    let logicsMsgTimestamp = 0n;
    const now = this.clock.now();
    if (final || now >= this.lastThoroughFlush + this.config.flushConsumeQueueThoroughInterval) {
      this.lastThoroughFlush = now;
      flushLeastPages = 0;
      logicsMsgTimestamp = this.logicsMsgTimestamp;
    }
    // Queues that do not write their entries as they come (autoCommit false) write them here.
    this.commitAll();
    await this.flushAll(flushLeastPages);
    await this.afterFlush?.({ flushLeastPages, logicsMsgTimestamp });
  }

  /** The flush run in progress (resolved when none): lets tests and shutdown wait for it. */
  whenFlushed(): Promise<void> {
    return this.currentRun;
  }

  /** Stops the interval flush, then writes and syncs everything (a final thorough run) and closes the files. */
  async shutdown(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.currentRun;
    try {
      await this.flushRun(true);
    } finally {
      for (const cq of this.queues()) cq.close();
      this.table.clear();
    }
  }

  /** Deletes every queue (upstream `destroyLogics`). */
  destroy(): void {
    this.running = false;
    this.timer?.cancel();
    for (const cq of this.queues()) cq.destroy();
    this.table.clear();
  }
}
