/**
 * CommitLog (upstream `CommitLog`, 4.9.8 on-disk format): every message of the broker, appended to
 * fixed-size segment files in the stored record format.
 *
 * Appends requested in one event-loop turn are assigned their offsets together and written with one
 * positional write per segment file (the next turn's appends queue while a write runs, and go out
 * together when it ends). After the write: the dispatchers (consume queues, index) get one
 * DispatchRequest per record, then ASYNC_FLUSH appends are acknowledged — the bytes are in the page
 * cache, so killing the process loses nothing acknowledged — and the write's SYNC_FLUSH appends go to
 * group commit together, as one request (flush-service.ts). A failed write fails every append in it, and
 * a failed write or fdatasync makes the commit log refuse every later append. Appends made while the
 * acknowledgements' microtasks run are written before the loop turn ends (see scheduleDrain).
 */

import { mkdirSync } from 'node:fs';
import { type Clock, systemClock } from '../common/clock.js';
import { createLogger, type Logger } from '../common/logger.js';
import type { StoreCheckpoint } from './checkpoint.js';
import { DEFAULT_DISK_FULL_RETRY_INTERVAL, DiskFullGuard } from './commit-log-disk-full.js';
import { CommitLogDispatchers } from './commit-log-dispatchers.js';
import { CommitLogReads } from './commit-log-reads.js';
import {
  isMappedFileMatchedRecover,
  RecordScanner,
  type RecoveryContext,
  type RecoveryResult,
  recoverFrom,
  type ScannedRecord,
  takesQueueOffset,
} from './commit-log-recovery.js';
import type { ReplicaRecord } from './commit-log-replica.js';
import { ReplicaAppender } from './commit-log-replica-appender.js';
import { CommitLogTail } from './commit-log-tail.js';
import {
  appendedResult,
  type CommitLogConfig,
  type CommitLogOptions,
  illegal,
  PendingAppend,
  settleAppend,
  WriteSegment,
} from './commit-log-types.js';
import { StorePath } from './config.js';
import { DelayLevelTable } from './delay-level.js';
import type { CommitLogDispatcher } from './dispatch-request.js';
import { isOutOfSpace } from './file-io.js';
import { FlushRealTimeService, type GroupCommitRequest, GroupCommitService } from './flush-service.js';
import type { MappedFile } from './mapped-file.js';
import { MappedFileQueue } from './mapped-file-queue.js';
import { encodeBatch, type PreparedBatch, prepareBatch } from './prepared-batch.js';
import { PutMessageResult, PutMessageStatus } from './put-message-result.js';
import { DEFAULT_RECOVERY_PROGRESS_INTERVAL } from './recovery-progress.js';
import { StoreIOError } from './store-error.js';
import {
  END_FILE_MIN_BLANK_LENGTH,
  encodeBlank,
  encodeMessage,
  isRefusal,
  type MessageExtBatch,
  type MessageExtBrokerInner,
  type PreparedMessage,
  type PrepareLimits,
  prepareMessage,
  type Refusal,
} from './stored-record-writer.js';
import { TopicQueueTable } from './topic-queue-table.js';

export type { RecoveryResult } from './commit-log-recovery.js';
export type { CommitLogConfig, CommitLogOptions } from './commit-log-types.js';
export type { MessageExtBatch, MessageExtBrokerInner } from './stored-record-writer.js';

const DEFAULT_MAX_WRITE_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_PENDING_BYTES = 64 * 1024 * 1024;
/** Slabs of the tail cache, which the turns' records are encoded into. */
const TAIL_SLAB_BYTES = 4 * 1024 * 1024;
/**
 * Starting the worker takes 40-80 ms. Measured here (abnormal recovery, medians, the second core free):
 * 100 MB of log 0.71 GB/s without it, 0.70 with; 268 MB 0.67 -> 1.08; 1 GB 0.72 -> 1.25. With both
 * cores busy with other work it gained nothing at 1 GB and lost a fifth at 268 MB.
 */
const DEFAULT_PARALLEL_CRC_MIN_BYTES = 128 * 1024 * 1024;
/** Bounds on the writes one event-loop turn makes for appenders that append again on each ack. */
const MAX_CONTINUED_DRAINS = 128;
const MAX_CONTINUED_BYTES = 1024 * 1024;
const resolved = Promise.resolve();

// One executor for every append's promise, so queueing an append allocates no closure of its own:
// the executor runs synchronously inside `new Promise` and leaves the resolver here for the caller.
let capturedResolve: (result: PutMessageResult) => void = () => undefined;
const captureResolve = (resolve: (result: PutMessageResult) => void): void => {
  capturedResolve = resolve;
};

export class CommitLog extends CommitLogReads {
  private readonly config: CommitLogConfig;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly checkpoint: StoreCheckpoint | undefined;
  private readonly limits: PrepareLimits;
  private readonly osPageCacheBusyTimeOutMills: number;
  private readonly maxPendingBytes: number;
  private readonly maxWriteBytes: number;
  private readonly checkCRCOnRecover: boolean;
  private readonly parallelCrcMinBytes: number;
  private readonly recoveryProgress: RecoveryContext['progress'];
  private readonly asyncWrites: boolean;
  private readonly syncFlush: boolean;
  private readonly groupCommit: GroupCommitService;
  private readonly flushService: FlushRealTimeService;
  private readonly dispatchers: CommitLogDispatchers;
  private readonly queueOffsets = new TopicQueueTable();
  private pending: PendingAppend[] = [];
  private pendingBytes = 0;
  private drainScheduled = false;
  /** Inside the microtasks of a drain (see scheduleDrain), with what this turn has written since. */
  private continuing = false;
  private continuedDrains = 0;
  private continuedBytes = 0;
  private readonly endContinuationBound = (): void => {
    this.continuing = false;
  };
  private writing = false;
  private writeStartedAt = 0;
  private idleWaiters: Array<() => void> = [];
  private loaded = false;
  private ready = false;
  private shuttingDown = false;
  private closed = false;
  private writeError: Error | undefined;
  private readonly diskFull: DiskFullGuard;
  private readonly drainBound = (): void => this.drain();
  /** Told after each write that made data readable (the HA service streams it to slaves). */
  private appendListeners: Array<() => void> = [];
  /** The slave's appends of its master's bytes. */
  private readonly replica: ReplicaAppender;
  /** SYNC_MASTER: a waiting append's wait for a slave to hold the log up to its end (see setReplicaWait). */
  private replicaWait: ((nextOffset: number) => Promise<PutMessageStatus>) | undefined;

  constructor(config: CommitLogConfig, options: CommitLogOptions = {}) {
    const log = options.logger ?? createLogger('store.commitLog');
    const maxWriteBytes = options.maxWriteBytes ?? DEFAULT_MAX_WRITE_BYTES;
    super(
      new MappedFileQueue(StorePath.commitLog(config.storePathRootDir), config.mappedFileSizeCommitLog, {
        ...(options.io === undefined ? {} : { io: options.io }),
        logger: log,
      }),
      new CommitLogTail(config.commitLogTailCacheBytes, Math.min(TAIL_SLAB_BYTES, maxWriteBytes + 64 * 1024)),
      new DelayLevelTable(options.messageDelayLevel),
    );
    this.config = config;
    this.clock = options.clock ?? systemClock;
    this.log = log;
    this.diskFull = new DiskFullGuard(
      this.clock,
      this.log,
      options.diskFullRetryInterval ?? DEFAULT_DISK_FULL_RETRY_INTERVAL,
    );
    this.dispatchers = new CommitLogDispatchers(this.log);
    this.checkpoint = options.checkpoint;
    this.limits = {
      maxMessageSize: config.maxMessageSize,
      mappedFileSize: config.mappedFileSizeCommitLog,
      delayLevels: this.delayLevels,
    };
    this.osPageCacheBusyTimeOutMills =
      options.osPageCacheBusyTimeOutMills ?? config.osPageCacheBusyTimeOutMills;
    this.maxPendingBytes = options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.maxWriteBytes = maxWriteBytes;
    this.checkCRCOnRecover = options.checkCRCOnRecover ?? true;
    this.parallelCrcMinBytes = options.parallelCrcMinBytes ?? DEFAULT_PARALLEL_CRC_MIN_BYTES;
    const onRecoveryProgress = options.onRecoveryProgress;
    this.recoveryProgress =
      onRecoveryProgress === undefined
        ? undefined
        : {
            listener: onRecoveryProgress,
            interval: options.recoveryProgressInterval ?? DEFAULT_RECOVERY_PROGRESS_INTERVAL,
            now: () => this.clock.now(),
          };
    this.asyncWrites = options.writeMode === 'async';
    this.syncFlush = config.flushDiskType === 'SYNC_FLUSH';
    this.replica = new ReplicaAppender(this.mappedFileQueue, config.maxMessageSize, this.delayLevels, {
      replicaRefusal: () => this.replicaRefusal(),
      failWrites: (err) => this.failWrites(err),
      replicated: (records) => this.replicated(records),
    });
    const hooks = {
      onFlushed: (storeTimestamp: number): void => {
        if (storeTimestamp > 0) this.checkpoint?.setPhysicMsgTimestamp(BigInt(storeTimestamp));
      },
      onFailure: (err: unknown): void => this.failWrites(err),
    };
    this.groupCommit = new GroupCommitService(
      this.mappedFileQueue,
      this.clock,
      config.syncFlushTimeout,
      hooks,
    );
    this.flushService = new FlushRealTimeService(this.mappedFileQueue, this.clock, config, hooks, this.log);
  }

  // ---------------------------------------------------------------- life cycle

  /** Opens the segment files (recovery then finds where the data ends). */
  load(): void {
    this.mappedFileQueue.load();
    this.loaded = true;
  }

  /** Starts the interval flush (ASYNC_FLUSH); group commit needs no start. */
  start(): void {
    if (!this.syncFlush) this.flushService.start();
  }

  /**
   * Writes out queued appends, stops the flush services, flushes everything (unless `flush` is false,
   * which leaves the data as a crash would: in the page cache) and closes the files.
   */
  async shutdown(options: { flush?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.shuttingDown = true;
    await this.whenIdle();
    await this.flushService.shutdown();
    await this.groupCommit.shutdown();
    if (options.flush !== false && this.writeError === undefined) {
      try {
        await this.flush();
      } catch (err) {
        this.log.error('final flush failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
    this.closed = true;
    this.mappedFileQueue.shutdown();
    this.tail.clear();
  }

  /** Flushes every written byte; resolves with the flushed offset. */
  async flush(): Promise<number> {
    const where = await this.mappedFileQueue.flushAll();
    const ts = this.mappedFileQueue.getStoreTimestamp();
    if (ts > 0) this.checkpoint?.setPhysicMsgTimestamp(BigInt(ts));
    return where;
  }

  /** Resolves when no append is queued or being written. */
  whenIdle(): Promise<void> {
    if (!this.writing && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Deletes every segment file (tests, and upstream's destroy). */
  destroy(): void {
    this.tail.clear();
    this.mappedFileQueue.destroy();
  }

  /** Why appends are refused, if they are (a failed write or fsync, or a dispatcher failure). */
  getWriteError(): Error | undefined {
    return this.writeError ?? this.dispatchers.error;
  }

  isWritable(): boolean {
    return this.getWriteError() === undefined && this.ready && !this.shuttingDown;
  }

  /** fdatasync calls made by group commit (SYNC_FLUSH) so far. */
  get groupCommitSyncCount(): number {
    return this.groupCommit.syncCount;
  }

  // ---------------------------------------------------------------- dispatch

  addDispatcher(dispatcher: CommitLogDispatcher): void {
    this.dispatchers.add(dispatcher);
  }

  // ---------------------------------------------------------------- topic queue table

  /** Next queue offset of each queue, keyed `topic-queueId` as upstream. */
  getTopicQueueTable(): Map<string, number> {
    return this.queueOffsets.toMap();
  }

  /** Replaces the table (upstream `setTopicQueueTable`, fed from the consume queues at recovery). */
  setTopicQueueTable(table: ReadonlyMap<string, number | bigint>): void {
    this.queueOffsets.replace(table);
  }

  /** Sets the queue offset the next message of `topic`/`queueId` gets. */
  setTopicQueueOffset(topic: string, queueId: number, next: number | bigint): void {
    this.queueOffsets.set(topic, queueId, next);
  }

  getTopicQueueOffset(topic: string, queueId: number): number {
    return this.queueOffsets.get(topic, queueId);
  }

  removeQueueFromTopicQueueTable(topic: string, queueId: number): void {
    this.queueOffsets.remove(topic, queueId);
  }

  // ---------------------------------------------------------------- appends

  private checkStoreStatus(): PutMessageStatus | undefined {
    if (!this.ready || this.shuttingDown || this.getWriteError() !== undefined) {
      return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    }
    if (this.diskFull.refusing()) return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.pendingBytes > this.maxPendingBytes) return PutMessageStatus.OS_PAGECACHE_BUSY;
    if (this.writing && this.clock.now() - this.writeStartedAt > this.osPageCacheBusyTimeOutMills) {
      return PutMessageStatus.OS_PAGECACHE_BUSY;
    }
    return undefined;
  }

  private refused(refusal: Refusal): Promise<PutMessageResult> {
    this.log.debug('append refused', { status: refusal.status, reason: refusal.reason });
    return Promise.resolve(new PutMessageResult(refusal.status));
  }

  /** Appends one message (upstream `asyncPutMessage`). */
  putMessage(inner: MessageExtBrokerInner): Promise<PutMessageResult> {
    const status = this.checkStoreStatus();
    if (status !== undefined) return Promise.resolve(new PutMessageResult(status));
    let prepared: PreparedMessage | Refusal;
    try {
      prepared = prepareMessage(inner, this.limits);
    } catch (err) {
      prepared = illegal(err);
    }
    return isRefusal(prepared) ? this.refused(prepared) : this.enqueue(prepared);
  }

  /** Appends a batch as consecutive records in one file (upstream `asyncPutMessages`). */
  putMessages(batch: MessageExtBatch): Promise<PutMessageResult> {
    const status = this.checkStoreStatus();
    if (status !== undefined) return Promise.resolve(new PutMessageResult(status));
    let prepared: PreparedBatch | Refusal;
    try {
      prepared = prepareBatch(batch, this.limits);
    } catch (err) {
      prepared = illegal(err);
    }
    return isRefusal(prepared) ? this.refused(prepared) : this.enqueue(prepared);
  }

  /** Queues a checked append for this turn's write. */
  private enqueue(item: PreparedMessage | PreparedBatch): Promise<PutMessageResult> {
    const promise = new Promise<PutMessageResult>(captureResolve);
    this.pending.push(new PendingAppend(item, capturedResolve));
    this.pendingBytes += item.size;
    if (!this.drainScheduled && !this.writing) this.scheduleDrain();
    return promise;
  }

  private failPending(status: PutMessageStatus): void {
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const p of pending) p.resolve(new PutMessageResult(status));
  }

  private failWrites(err: unknown): void {
    if (this.writeError !== undefined) return;
    this.writeError =
      err instanceof Error
        ? err
        : new StoreIOError(this.mappedFileQueue.storePath, `write failed: ${String(err)}`);
    this.log.error('commit log write failed; refusing further appends', { error: this.writeError.message });
  }

  /**
   * Runs the next drain at the end of this event-loop turn (setImmediate), or, for appends made in the
   * microtasks that follow a drain's acknowledgements (an appender that appends again as soon as it is
   * acknowledged), right after those microtasks: going round the event loop costs more than a write
   * here. A turn continues this way for at most MAX_CONTINUED_DRAINS writes or MAX_CONTINUED_BYTES, then
   * yields to the loop so timers and sockets are served. Asynchronous writes end in the poll phase and
   * take the next queued appends at once (afterWrite), so they never continue.
   */
  private scheduleDrain(): void {
    this.drainScheduled = true;
    if (
      this.continuing &&
      this.continuedDrains < MAX_CONTINUED_DRAINS &&
      this.continuedBytes < MAX_CONTINUED_BYTES
    ) {
      this.continuedDrains++;
      // A bare promise job: queueMicrotask adds an async-resource wrapper per call.
      void resolved.then(this.drainBound);
      return;
    }
    setImmediate(this.drainBound);
    // Queued right behind the drain, this runs once the drain's microtasks are done and before the
    // loop polls for I/O: appends from sockets then wait for the next turn's drain, all together.
    if (!this.asyncWrites) setImmediate(this.endContinuationBound);
  }

  /** Assembles the queued appends into one buffer and writes it (one write per segment file). */
  private drain(): void {
    this.drainScheduled = false;
    if (!this.continuing && !this.asyncWrites) {
      this.continuing = true;
      this.continuedDrains = 0;
      this.continuedBytes = 0;
    }
    if (this.writing || this.pending.length === 0) {
      this.notifyIdle();
      return;
    }
    if (this.getWriteError() !== undefined || this.closed || this.diskFull.refusing()) {
      this.failPending(PutMessageStatus.SERVICE_NOT_AVAILABLE);
      this.notifyIdle();
      return;
    }
    let count = 0;
    let bytes = 0;
    const all = this.pending;
    while (count < all.length) {
      const size = all[count]!.item.size;
      if (count > 0 && bytes + size > this.maxWriteBytes) break;
      bytes += size;
      count++;
    }
    let taken: PendingAppend[];
    if (count === all.length) {
      taken = all;
      this.pending = [];
    } else {
      taken = all.slice(0, count);
      this.pending = all.slice(count);
    }
    this.pendingBytes -= bytes;
    this.continuedBytes += bytes;

    const fileSize = this.config.mappedFileSizeCommitLog;
    let file = this.mappedFileQueue.getLastMappedFile();
    try {
      if (file === undefined || file.isFull()) file = this.mappedFileQueue.createNextMappedFile(0);
    } catch (err) {
      this.log.error('cannot create a commit log file', {
        error: err instanceof Error ? err.message : String(err),
      });
      for (const p of taken) p.resolve(new PutMessageResult(PutMessageStatus.CREATE_MAPEDFILE_FAILED));
      if (this.pending.length > 0 && !this.drainScheduled) this.scheduleDrain();
      this.notifyIdle();
      return;
    }
    const { out, start } = this.tail.reserve(bytes + END_FILE_MIN_BLANK_LENGTH * (count + 1));
    const storeTimestamp = this.clock.now();
    const segments: WriteSegment[] = [];
    let filePos = file.getWrotePosition();
    let segFile: MappedFile | undefined = file;
    let segFilePos = filePos;
    let segStart = start;
    let bufPos = start;
    for (let i = 0; i < count; i++) {
      const p = taken[i]!;
      const item = p.item;
      if (item.size + END_FILE_MIN_BLANK_LENGTH > fileSize - filePos) {
        bufPos = encodeBlank(out, bufPos, fileSize - filePos);
        segments.push(new WriteSegment(file, segFilePos, segStart, bufPos, fileSize));
        try {
          file = this.mappedFileQueue.createNextMappedFile(0);
        } catch (err) {
          this.log.error('cannot create a commit log file', {
            error: err instanceof Error ? err.message : String(err),
          });
          segFile = undefined;
          break;
        }
        filePos = 0;
        segFile = file;
        segFilePos = 0;
        segStart = bufPos;
      }
      p.physicalOffset = file.fileFromOffset + filePos;
      p.segment = segments.length;
      if (item.kind === 0) {
        p.queueOffset = item.consumesQueueOffset ? this.queueOffsets.take(item.topic, item.queueId, 1) : 0;
        bufPos = encodeMessage(out, bufPos, item, p.queueOffset, p.physicalOffset, storeTimestamp);
      } else {
        p.queueOffset = this.queueOffsets.take(item.topic, item.queueId, item.count);
        bufPos = encodeBatch(out, bufPos, item, p.queueOffset, p.physicalOffset, storeTimestamp);
      }
      filePos += item.size;
    }
    if (segFile !== undefined && bufPos > segStart) {
      segments.push(new WriteSegment(segFile, segFilePos, segStart, bufPos, filePos));
    }
    this.tail.used(bufPos);

    this.writing = true;
    this.writeStartedAt = storeTimestamp;
    const buf = out.bytes;
    if (!this.asyncWrites) {
      let failure: unknown;
      for (const seg of segments) {
        try {
          seg.file.writeSync(seg.filePosition, buf, seg.start, seg.end - seg.start);
          seg.done = true;
        } catch (err) {
          failure = err;
          break;
        }
      }
      this.afterWrite(taken, segments, buf, storeTimestamp, failure);
      return;
    }
    let chain: Promise<void> = Promise.resolve();
    for (const seg of segments) {
      chain = chain
        .then(() => seg.file.write(seg.filePosition, buf, seg.start, seg.end - seg.start))
        .then(() => {
          seg.done = true;
        });
    }
    chain.then(
      () => this.afterWrite(taken, segments, buf, storeTimestamp, undefined),
      (err: unknown) => this.afterWrite(taken, segments, buf, storeTimestamp, err),
    );
  }

  /** Positions, dispatch and acknowledgements once the turn's write has ended. */
  private afterWrite(
    taken: PendingAppend[],
    segments: WriteSegment[],
    buf: Buffer,
    storeTimestamp: number,
    failure: unknown,
  ): void {
    for (const seg of segments) {
      if (!seg.done) break;
      seg.file.setWrotePosition(seg.endPosition);
      seg.file.setStoreTimestamp(storeTimestamp);
      this.tail.add(seg.file.fileFromOffset + seg.filePosition, buf, seg.start, seg.end);
    }
    const spaceLeft = failure !== undefined && isOutOfSpace(failure) && !this.shuttingDown;
    if (spaceLeft) this.diskFull.outOfSpace(failure, taken, segments, this.queueOffsets);
    else if (failure !== undefined) this.failWrites(failure);
    else if (segments.length > 0) this.diskFull.wrote();
    const tsBig = BigInt(storeTimestamp);
    const dispatch = this.dispatchers.isEmpty ? undefined : this.dispatchers.dispatch;
    const dispatchBatch = this.dispatchers.isEmpty ? undefined : this.dispatchers.dispatchBatch;
    let unwaited = false;
    // SYNC_FLUSH: the write's waiting appends share one group-commit request, ending at the last of them.
    let waiters: PendingAppend[] | undefined;
    let waitedEnd = 0;
    for (const p of taken) {
      const seg = p.segment >= 0 ? segments[p.segment] : undefined;
      if (seg === undefined || !seg.done) {
        p.resolve(
          new PutMessageResult(
            seg === undefined
              ? PutMessageStatus.CREATE_MAPEDFILE_FAILED
              : spaceLeft
                ? PutMessageStatus.SERVICE_NOT_AVAILABLE
                : PutMessageStatus.UNKNOWN_ERROR,
          ),
        );
        continue;
      }
      const item = p.item;
      const result = appendedResult(p, storeTimestamp, tsBig, this.delayLevels, dispatch, dispatchBatch);
      const put = new PutMessageResult(PutMessageStatus.PUT_OK, result);
      // Upstream's thenCombine: the slave's wait starts with the flush's, not after it.
      if (this.replicaWait !== undefined && item.waitStoreMsgOK)
        p.replica = this.replicaWait(p.physicalOffset + item.size);
      if (this.syncFlush && item.waitStoreMsgOK) {
        p.result = put;
        waiters ??= [];
        waiters.push(p);
        waitedEnd = p.physicalOffset + item.size;
      } else {
        if (this.syncFlush) unwaited = true;
        settleAppend(p, put);
      }
    }
    if (waiters !== undefined) this.groupCommit.putRequest(this.groupCommitRequest(waiters, waitedEnd));
    if (unwaited) this.groupCommit.wakeup();
    this.writing = false;
    if (segments.length > 0) this.notifyAppended();
    if (this.pending.length > 0) {
      if (this.getWriteError() !== undefined || this.diskFull.refusing())
        this.failPending(PutMessageStatus.SERVICE_NOT_AVAILABLE);
      else if (this.asyncWrites) this.drain();
      else if (!this.drainScheduled) this.scheduleDrain();
    }
    this.notifyIdle();
  }

  /** One request for every waiting append of a write: they become durable with the same fdatasync. */
  private groupCommitRequest(waiters: PendingAppend[], nextOffset: number): GroupCommitRequest {
    return this.groupCommit.newRequest(nextOffset, (status) => {
      for (const w of waiters) {
        const put = w.result!;
        put.putMessageStatus = status;
        settleAppend(w, put);
      }
    });
  }

  private notifyIdle(): void {
    if (this.writing || this.pending.length > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * SYNC_MASTER (upstream `submitReplicaRequest`): every append that waits for its store (waitStoreMsgOK)
   * also waits for `wait`, begun as soon as its bytes are written; a status other than PUT_OK replaces
   * the flush's, as upstream's thenCombine does.
   */
  setReplicaWait(wait: (nextOffset: number) => Promise<PutMessageStatus>): void {
    this.replicaWait = wait;
  }

  /** Hears of every write that made new bytes readable (called once per write, after dispatch). */
  addAppendListener(listener: () => void): void {
    this.appendListeners.push(listener);
  }

  private notifyAppended(): void {
    for (const listener of this.appendListeners) {
      try {
        listener();
      } catch (err) {
        this.log.warn('append listener failed', { error: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  /** A slave's append of bytes its master sent (upstream `appendData`): see ReplicaAppender. */
  appendReplicated(startOffset: number, data: Buffer): string | undefined {
    return this.replica.append(startOffset, data);
  }

  private replicaRefusal(): string | undefined {
    if (!this.ready || this.shuttingDown || this.closed) return 'the commit log is not open';
    const writeError = this.getWriteError();
    if (writeError !== undefined) return `the commit log refuses writes: ${writeError.message}`;
    if (this.writing || this.pending.length > 0) return 'the commit log is taking appends of its own';
    return undefined;
  }

  private replicated(records: readonly ReplicaRecord[]): void {
    const dispatch = this.dispatchers.isEmpty ? undefined : this.dispatchers.dispatch;
    for (const r of records) {
      if (takesQueueOffset(r.sysFlag)) this.queueOffsets.raise(r.topic, r.queueId, r.queueOffset + 1);
      dispatch?.(r.request);
    }
    // SYNC_FLUSH has no interval flush: group commit flushes the replicated bytes (upstream's
    // GroupCommitService flushes every 10 ms whether or not a request waits).
    if (this.syncFlush) this.groupCommit.wakeup();
    this.notifyAppended();
  }

  /**
   * Ours (haAllowResetSlave): deletes every file, so that replication can start again at the
   * master's first file. Only while idle: a slave makes no appends of its own. The flush service is
   * stopped around it, so no flush runs on a deleted file.
   */
  async resetForReplica(): Promise<void> {
    if (this.writing || this.pending.length > 0) {
      throw new StoreIOError(
        this.mappedFileQueue.storePath,
        'cannot reset a commit log that is taking appends',
      );
    }
    await this.flushService.shutdown();
    try {
      this.tail.clear();
      this.mappedFileQueue.destroy();
      mkdirSync(this.mappedFileQueue.storePath, { recursive: true });
      this.replica.reset();
      this.queueOffsets.replace(new Map());
    } finally {
      if (!this.syncFlush && !this.shuttingDown) this.flushService.start();
    }
  }

  /** Where the slave's replicated records have been dispatched up to (-1 before the first append). */
  get replicaDispatchedTo(): number {
    return this.replica.dispatchedTo;
  }

  // ---------------------------------------------------------------- reads (commit-log-reads.ts)

  /** How long the write under way has taken so far (upstream `lockTimeMills`), 0 when none is. */
  lockTimeMills(): number {
    return this.writing ? Math.max(0, this.clock.now() - this.writeStartedAt) : 0;
  }

  // ---------------------------------------------------------------- recovery

  private recoveryContext(buildRequests: boolean): RecoveryContext {
    return {
      queue: this.mappedFileQueue,
      scanner: new RecordScanner(),
      buildRequests,
      allowMidLogTruncation: this.config.allowMidLogTruncation,
      logger: this.log,
      parallelCrcMinBytes: this.parallelCrcMinBytes,
      ...(this.recoveryProgress === undefined ? {} : { progress: this.recoveryProgress }),
      options: {
        checkCRC: this.checkCRCOnRecover,
        delayLevels: this.delayLevels,
        onRecord: (r: ScannedRecord) => {
          if (takesQueueOffset(r.sysFlag)) this.queueOffsets.raise(r.topic, r.queueId, r.queueOffset + 1);
          if (r.request !== undefined) this.dispatchers.dispatch(r.request);
        },
      },
    };
  }

  private finishRecovery(result: RecoveryResult): RecoveryResult {
    this.tail.clear();
    this.ready = true;
    this.log.info('commit log recovered', {
      maxOffset: result.processOffset,
      scannedBytes: result.scannedBytes,
      stoppedAt:
        result.stoppedAt === undefined
          ? undefined
          : `${result.stoppedAt.fileName}@${result.stoppedAt.offset}`,
    });
    return result;
  }

  /**
   * After a clean shutdown (upstream `recoverNormally`): scans the last three files. The queue offsets
   * of the records scanned are taken into the topic queue table; the store then sets the others from
   * the consume queues.
   */
  recoverNormally(maxPhyOffsetOfConsumeQueue = -1): RecoveryResult {
    if (!this.loaded) this.load();
    const files = this.mappedFileQueue.getMappedFiles();
    const start = Math.max(0, files.length - 3);
    return this.finishRecovery(recoverFrom(this.recoveryContext(false), start, maxPhyOffsetOfConsumeQueue));
  }

  /**
   * After a crash (upstream `recoverAbnormally`): scans from the last file whose first record was
   * stored at or before the checkpoint's minimum timestamp (the first file without a checkpoint) and
   * dispatches every record it scans.
   */
  recoverAbnormally(maxPhyOffsetOfConsumeQueue = -1): RecoveryResult {
    if (!this.loaded) this.load();
    const files = this.mappedFileQueue.getMappedFiles();
    let start = 0;
    for (let i = files.length - 1; i >= 0; i--) {
      if (isMappedFileMatchedRecover(files[i]!, this.checkpoint?.getMinTimestamp())) {
        start = i;
        break;
      }
    }
    return this.finishRecovery(
      recoverFrom(this.recoveryContext(!this.dispatchers.isEmpty), start, maxPhyOffsetOfConsumeQueue),
    );
  }

  // ---------------------------------------------------------------- retention

  /**
   * Upstream `deleteExpiredFile`: deletes the oldest files last modified `expiredTime` ms ago or more
   * (all old ones at once when `cleanImmediately`), never the file being appended to.
   */
  deleteExpiredFile(
    expiredTime: number,
    deleteFilesInterval: number,
    intervalForcibly: number,
    cleanImmediately: boolean,
  ): Promise<number> {
    return this.mappedFileQueue
      .deleteExpiredFileByTime(
        expiredTime,
        deleteFilesInterval,
        intervalForcibly,
        cleanImmediately,
        this.clock,
      )
      .then((deleted) => {
        if (deleted > 0) this.tail.dropBefore(this.getMinOffset());
        return deleted;
      });
  }
}
