/**
 * DefaultMessageStore (upstream store/DefaultMessageStore.java, 4.9.8): the commit log, the consume
 * queues, the index and the checkpoint behind the MessageStore interface, with upstream's start-up
 * order, recovery and services.
 *
 * Differences in mechanism, not in files: upstream's ReputMessageService polls the commit log and
 * dispatches in a thread; here the commit log dispatches each record to the consume queues, the
 * index and the arriving listeners in the turn its bytes were written, and the reput only runs at
 * start, over what the consume queues (or the index) miss after a restart.
 */

import { mkdirSync } from 'node:fs';
import { totalmem } from 'node:os';
import { type Clock, systemClock } from '../common/clock.js';
import { RocketMQError } from '../common/errors.js';
import { javaDoubleString } from '../common/java-format.js';
import { createLogger, type Logger } from '../common/logger.js';
import type { HostAddress } from '../common/message/host.js';
import { MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2, type MessageExt } from '../common/message/message.js';
import { createOffsetMsgId } from '../common/message/message-id.js';
import { decodeMessage, MIN_STORED_RECORD_SIZE } from '../common/message/stored-format.js';
import { validateTopic } from '../common/validators.js';
import { abortFileExists, createAbortFile, deleteAbortFile } from './abort-file.js';
import { StoreCheckpoint } from './checkpoint.js';
import { type CleanCommitLogOptions, CleanCommitLogService } from './clean-commit-log-service.js';
import { CommitLog, type CommitLogOptions, type RecoveryResult } from './commit-log.js';
import { type MessageStoreConfig, StorePath } from './config.js';
import type { ConsumeQueue } from './consume-queue.js';
import { CQ_STORE_UNIT_SIZE, cqEntryAt, validateQueueId } from './consume-queue-entry.js';
import { ConsumeQueueStore, type QueueRef } from './consume-queue-store.js';
import { diskPartitionSpaceUsedPercent } from './disk-usage.js';
import {
  checkInDiskByCommitOffset,
  emptyResult,
  type GetMessageContext,
  getMessageFromQueue,
} from './get-message.js';
import { HAService } from './ha/ha-service.js';
import { IndexService } from './index-service.js';
import {
  type ConsumeQueueView,
  type GetMessageResult,
  GetMessageStatus,
  type MessageArrivingInterest,
  type MessageArrivingListener,
  type MessageFilter,
  type MessageStore,
  type QueryMessageResult,
} from './message-store.js';
import { PullReadCache } from './pull-read-cache.js';
import { PutMessageResult, PutMessageStatus } from './put-message-result.js';
import { describe, StoreDispatcher } from './store-dispatcher.js';
import { StoreLock } from './store-lock.js';
import { StoreStats } from './store-stats.js';
import type { MessageExtBatch, MessageExtBrokerInner } from './stored-record-writer.js';

/** Upstream BrokerRole. */
export type BrokerRole = 'ASYNC_MASTER' | 'SYNC_MASTER' | 'SLAVE';

export interface DefaultMessageStoreOptions {
  clock?: Clock;
  logger?: Logger;
  /** The broker's own address (brokerIP1:listenPort), for the offset message ids of getMessageIds. */
  brokerStoreHost?: HostAddress;
  /** Upstream `brokerRole` [ASYNC_MASTER]: a SLAVE refuses appends. */
  brokerRole?: BrokerRole;
  /** Upstream `offsetCheckInSlave` [false]: whether a slave corrects pull offsets as a master does. */
  offsetCheckInSlave?: boolean;
  /** Upstream `messageDelayLevel`. */
  messageDelayLevel?: string;
  /** Bytes of RAM the in-memory ratio applies to [os.totalmem()]. */
  totalPhysicalMemory?: number;
  /** Knobs of the commit log the config does not carry (write mode, busy timeouts, file I/O). */
  commitLog?: Omit<CommitLogOptions, 'clock' | 'logger' | 'checkpoint' | 'messageDelayLevel'>;
  /** Knobs and test hooks of the retention service (intervals, disk-use probe, hour of day). */
  retention?: Omit<CleanCommitLogOptions, 'clock' | 'logger' | 'onDeleted'>;
  /** HA knobs broker.conf does not carry. */
  ha?: {
    /** ms a slave waits before connecting to its master again [5000, upstream's fixed wait]. */
    reconnectInterval?: number;
  };
}

type State = 'new' | 'loaded' | 'running' | 'stopped';

/** Largest record the store reads when a caller only gives its offset (maxMessageSize + header room). */
const RECORD_HEADROOM = 64 * 1024;

export class DefaultMessageStore implements MessageStore {
  readonly config: MessageStoreConfig;
  readonly commitLog: CommitLog;
  readonly consumeQueueStore: ConsumeQueueStore;
  readonly indexService: IndexService;
  readonly checkpoint: StoreCheckpoint;
  readonly stats = new StoreStats();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly cleanCommitLogService: CleanCommitLogService;
  /**
   * The broker's own address, for offset message ids; the broker sets it once its port is bound
   * (listenPort 0 picks one after the store exists).
   */
  brokerStoreHost: HostAddress | undefined;
  private readonly brokerRole: BrokerRole;
  private readonly getContext: GetMessageContext;
  private readonly dispatcher: StoreDispatcher;
  /** Replication (upstream `haService`): the broker starts it on listenPort + 1. */
  readonly haService: HAService;
  private state: State = 'new';
  private lock: StoreLock | undefined;
  private lastExitOK = true;
  private recovery: RecoveryResult | undefined;
  private shutdownPromise: Promise<void> | undefined;

  constructor(config: MessageStoreConfig, options: DefaultMessageStoreOptions = {}) {
    this.config = config;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? createLogger('store');
    this.brokerStoreHost = options.brokerStoreHost;
    this.brokerRole = options.brokerRole ?? 'ASYNC_MASTER';
    this.checkpoint = new StoreCheckpoint(StorePath.checkpoint(config.storePathRootDir), {
      logger: this.log.child('checkpoint'),
    });
    this.commitLog = new CommitLog(config, {
      ...options.commitLog,
      clock: this.clock,
      logger: this.log.child('commitLog'),
      checkpoint: this.checkpoint,
      ...(options.messageDelayLevel === undefined ? {} : { messageDelayLevel: options.messageDelayLevel }),
    });
    // The consume queues and the index hold their newest entries in memory, where reads find them, and
    // write them when their buffers fill and at each consume-queue flush run (flushIntervalConsumeQueue),
    // not after every append: writing them per append cost five system calls per message, a third of
    // a single appender's rate. What a crash loses of them, recovery dispatches again from the commit log.
    this.consumeQueueStore = new ConsumeQueueStore(config, {
      clock: this.clock,
      logger: this.log.child('consumeQueue'),
      autoCommit: false,
      afterFlush: async ({ flushLeastPages, logicsMsgTimestamp }) => {
        this.indexService.commit();
        // Upstream FlushConsumeQueueService: a thorough flush makes the dispatched entries durable.
        if (flushLeastPages !== 0) return;
        if (logicsMsgTimestamp > 0n) this.checkpoint.setLogicsMsgTimestamp(logicsMsgTimestamp);
        await this.checkpoint.flushAsync();
      },
    });
    this.indexService = new IndexService(config, {
      clock: this.clock,
      autoCommit: false,
      logger: this.log.child('index'),
      onIndexFileFlushed: (indexMsgTimestamp) => {
        this.checkpoint.setIndexMsgTimestamp(indexMsgTimestamp);
        return this.checkpoint.flushAsync();
      },
    });
    this.cleanCommitLogService = new CleanCommitLogService(this.commitLog, config, {
      ...options.retention,
      clock: this.clock,
      logger: this.log.child('clean'),
      onDeleted: () => this.cleanConsumeQueues(),
    });
    this.getContext = {
      commitLog: this.commitLog,
      limits: config,
      memory: Math.floor(
        (options.totalPhysicalMemory ?? totalmem()) * (config.accessMessageInMemoryMaxRatio / 100),
      ),
      correctOffsets: this.brokerRole !== 'SLAVE' || options.offsetCheckInSlave === true,
      readCache:
        config.pullReadCacheBytes > 0
          ? new PullReadCache(config.pullReadCacheBytes, this.commitLog, config.mappedFileSizeCommitLog)
          : undefined,
    };
    const dispatcher = new StoreDispatcher(
      config,
      this.consumeQueueStore,
      this.indexService,
      this.log,
      () => this.state === 'running',
    );
    this.dispatcher = dispatcher;
    this.commitLog.addDispatcher({
      dispatch: (request) => dispatcher.dispatch(request),
      dispatchBatch: (batch) => dispatcher.dispatchBatch(batch),
    });
    this.haService = new HAService(this.commitLog, config, {
      clock: this.clock,
      logger: this.log.child('ha'),
      ...(options.ha?.reconnectInterval === undefined
        ? {}
        : { reconnectInterval: options.ha.reconnectInterval }),
      resetTo: () => this.resetForReplica(),
    });
    if (this.brokerRole === 'SYNC_MASTER') {
      const ha = this.haService;
      this.commitLog.setReplicaWait((nextOffset) => ha.waitForSlave(nextOffset));
    }
  }

  /** Upstream BrokerRole of this store. */
  get role(): BrokerRole {
    return this.brokerRole;
  }

  // ---------------------------------------------------------------- life cycle

  /**
   * Opens and recovers the store (upstream `load`): takes the lock, reads the abort marker, loads the
   * commit log, consume queues, checkpoint and index, recovers them in upstream's order and creates
   * the abort marker. Throws a typed error naming the file and offset when the files do not add up.
   */
  async load(): Promise<void> {
    if (this.state !== 'new') throw new RocketMQError(`message store cannot load when ${this.state}`);
    const root = this.config.storePathRootDir;
    this.lock = StoreLock.acquire(root);
    try {
      // Upstream's constructor creates these, so a new store looks like an empty old one.
      for (const dir of [StorePath.commitLog(root), StorePath.consumeQueue(root)])
        mkdirSync(dir, { recursive: true });
      this.lastExitOK = !abortFileExists(root);
      this.log.info('last shutdown', { normally: this.lastExitOK });
      this.commitLog.load();
      this.consumeQueueStore.load();
      this.indexService.load(this.lastExitOK, this.checkpoint.getIndexMsgTimestamp());
      this.dispatcher.refreshIndexFrom();
      this.recover();
      createAbortFile(root);
    } catch (err) {
      this.closeAfterFailedLoad();
      throw err;
    }
    this.state = 'loaded';
  }

  private recover(): void {
    const maxPhyOffsetOfConsumeQueue = this.consumeQueueStore.recover();
    this.dispatcher.recovering = true;
    try {
      this.recovery = this.lastExitOK
        ? this.commitLog.recoverNormally(Number(maxPhyOffsetOfConsumeQueue))
        : this.commitLog.recoverAbnormally(Number(maxPhyOffsetOfConsumeQueue));
    } finally {
      this.dispatcher.recovering = false;
    }
    // A record the consume queues could not take during recovery would leave the store refusing
    // every append; refuse the load instead, with the reason.
    const dispatchFailure = this.commitLog.getWriteError();
    if (dispatchFailure !== undefined) throw dispatchFailure;
    const maxPhyOffset = BigInt(this.recovery.processOffset);
    if (this.recovery.truncateConsumeQueue) this.consumeQueueStore.truncateDirtyLogicFiles(maxPhyOffset);
    if (this.indexService.truncateDirty(maxPhyOffset) > 0) this.dispatcher.refreshIndexFrom();
    this.recoverTopicQueueTable();
  }

  /** Upstream `recoverTopicQueueTable`: queue offsets from the consume queues, minimums corrected. */
  recoverTopicQueueTable(): void {
    const table = this.consumeQueueStore.recoverTopicQueueTable(BigInt(this.commitLog.getMinOffset()));
    this.commitLog.setTopicQueueTable(table);
  }

  private closeAfterFailedLoad(): void {
    for (const close of [
      () => this.commitLog.mappedFileQueue.shutdown(),
      () => {
        for (const cq of this.consumeQueueStore.queues()) cq.close();
      },
      () => {
        for (const f of this.indexService.indexFiles()) f.close();
      },
    ]) {
      try {
        close();
      } catch {
        // Closing what the failed load opened; the load error is what the caller needs.
      }
    }
    this.lock?.release();
    this.lock = undefined;
    this.state = 'stopped';
  }

  /**
   * Starts the services (upstream `start`): dispatches what the consume queues and the index miss
   * (the reput), rebuilds the queue offsets, then starts flushing and retention.
   */
  async start(): Promise<void> {
    if (this.state !== 'loaded') throw new RocketMQError(`message store cannot start when ${this.state}`);
    this.reput();
    this.recoverTopicQueueTable();
    this.commitLog.start();
    this.consumeQueueStore.start();
    this.cleanConsumeQueues();
    this.cleanCommitLogService.start();
    this.stats.start(this.clock);
    this.state = 'running';
  }

  /**
   * Upstream's start-up reput: from the end of the consume queues (not below the commit log's start)
   * to the end of the commit log, and — ours — from the end of the index when it is further behind,
   * e.g. after a crash dropped its newest file.
   */
  private reput(): void {
    const clMin = this.commitLog.getMinOffset();
    const clMax = this.commitLog.getMaxOffset();
    if (clMin < 0 || clMin >= clMax) return;
    const cqFrom = Math.max(Number(this.consumeQueueStore.getMaxPhysicOffset()), clMin);
    // Abnormal recovery may have indexed records since load measured the index.
    const dispatcher = this.dispatcher;
    dispatcher.refreshIndexFrom();
    const indexFrom = dispatcher.indexFrom;
    let from = cqFrom;
    if (this.config.messageIndexEnable && indexFrom < from) {
      const last = this.indexService.indexFiles().at(-1);
      // The index's end is the start of its last record: a record boundary the walk can start at.
      from = Math.max(clMin, indexFrom === 0 ? clMin : Number(last?.getEndPhyOffset() ?? 0n));
    }
    if (from >= clMax) return;
    this.log.info('reput', { from, cqFrom, indexFrom, to: clMax });
    this.commitLog.forEachRecord(from, (request) => dispatcher.reputRecord(request, cqFrom));
  }

  /**
   * Stops the services, writes out and flushes everything, writes the checkpoint, removes the abort
   * marker (kept when a write failed, so the next start recovers abnormally) and releases the lock.
   */
  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.doShutdown();
    return this.shutdownPromise;
  }

  private async doShutdown(): Promise<void> {
    const wasOpen = this.state === 'loaded' || this.state === 'running';
    this.state = 'stopped';
    if (!wasOpen) return;
    this.stats.shutdown();
    let firstError: unknown;
    try {
      await this.haService.shutdown();
    } catch (err) {
      this.log.error('shutdown: HA service failed', { error: describe(err) });
    }
    const step = async (what: string, fn: () => Promise<void> | void): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        firstError ??= err;
        this.log.error(`shutdown: ${what} failed`, { error: describe(err) });
      }
    };
    await step('retention', () => this.cleanCommitLogService.shutdown());
    await step('commit log', () => this.commitLog.shutdown());
    await step('consume queues', () => this.consumeQueueStore.shutdown());
    await step('index', () => this.indexService.shutdown());
    await step('checkpoint', () => this.checkpoint.flushAsync());
    const healthy =
      firstError === undefined &&
      this.commitLog.getWriteError() === undefined &&
      this.indexService.failed === undefined;
    if (healthy) await step('abort file', () => deleteAbortFile(this.config.storePathRootDir));
    else this.log.warn('the store may be damaged: keeping the abort file so the next start recovers');
    this.lock?.release();
    this.lock = undefined;
    if (firstError !== undefined) throw firstError;
  }

  /** Whether the last run ended without a clean shutdown (read by load). */
  get lastShutdownWasClean(): boolean {
    return this.lastExitOK;
  }

  /** What the commit log's recovery found (after load). */
  get recoveryResult(): RecoveryResult | undefined {
    return this.recovery;
  }

  isRunning(): boolean {
    return this.state === 'running';
  }

  // ---------------------------------------------------------------- appends

  private checkStoreStatus(): PutMessageStatus | undefined {
    if (this.state !== 'running') return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.brokerRole === 'SLAVE') return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    if (this.cleanCommitLogService.isDiskFull()) return PutMessageStatus.SERVICE_NOT_AVAILABLE;
    return undefined;
  }

  putMessage(message: MessageExtBrokerInner): Promise<PutMessageResult> {
    const refused = this.checkStoreStatus();
    if (refused !== undefined) return Promise.resolve(new PutMessageResult(refused));
    const begin = this.clock.now();
    return this.commitLog.putMessage(message).then((result) => this.countPut(result, begin));
  }

  putMessages(batch: MessageExtBatch): Promise<PutMessageResult> {
    const refused = this.checkStoreStatus();
    if (refused !== undefined) return Promise.resolve(new PutMessageResult(refused));
    const begin = this.clock.now();
    return this.commitLog.putMessages(batch).then((result) => this.countPut(result, begin));
  }

  /**
   * A slave's append of its master's bytes at `startOffset` (upstream `appendToCommitLog`): undefined
   * when written (and the records it completed dispatched), else why not.
   */
  appendToCommitLog(startOffset: number, data: Buffer): string | undefined {
    if (this.state !== 'running') return `message store is ${this.state}, so appendToCommitLog is forbidden`;
    return this.commitLog.appendReplicated(startOffset, data);
  }

  /**
   * Ours (haAllowResetSlave): empties a slave's commit log, consume queues and index, so that it
   * follows a master whose files before its own end are gone. The commit log goes first: a crash in
   * between leaves consume queues pointing at nothing, which recovery cuts off.
   */
  async resetForReplica(): Promise<void> {
    if (this.brokerRole !== 'SLAVE')
      throw new RocketMQError('only a slave store can be reset to follow its master');
    if (this.state !== 'running') throw new RocketMQError(`message store is ${this.state}`);
    const from = { minOffset: this.commitLog.getMinOffset(), maxOffset: this.commitLog.getMaxOffset() };
    await this.commitLog.resetForReplica();
    this.consumeQueueStore.destroy();
    this.consumeQueueStore.start();
    this.indexService.destroy();
    this.dispatcher.refreshIndexFrom();
    this.log.warn('slave store emptied to follow its master (haAllowResetSlave)', from);
  }

  /** Up to `maxSize` commit-log bytes from `offset`, within one file (upstream `getCommitLogData`). */
  getCommitLogData(offset: number, maxSize: number): Buffer | undefined {
    return this.commitLog.getData(offset, maxSize);
  }

  private countPut(result: PutMessageResult, begin: number): PutMessageResult {
    const stats = this.stats;
    stats.recordPutTime(this.clock.now() - begin);
    if (result.isOk()) {
      stats.putMessageTimesTotal += result.appendMessageResult?.msgNum ?? 1;
      stats.putMessageSizeTotal += result.appendMessageResult?.wroteBytes ?? 0;
    } else {
      stats.putMessageFailedTimes++;
    }
    return result;
  }

  /** Flushes the commit log; resolves with the flushed offset (upstream `flush`). */
  async flush(): Promise<bigint> {
    return BigInt(await this.commitLog.flush());
  }

  // ---------------------------------------------------------------- reads

  queryConsumeQueue(
    topic: string,
    queueId: number,
    index: bigint,
    count: number,
  ): ConsumeQueueView | undefined {
    const cq = this.findQueue(topic, queueId);
    if (cq === undefined) return undefined;
    // Upstream looks the entry up first and applies the count after, so a count below 1 still tells
    // an existing entry (an empty list) from a missing one (no list).
    const bounds = { minQueueIndex: cq.getMinOffsetInQueue(), maxQueueIndex: cq.getMaxOffsetInQueue() };
    const buf = cq.getIndexBuffer(index, Math.max(count, 1));
    if (buf === undefined) return { ...bounds, entries: undefined };
    const listed = count > 0 ? buf.length / CQ_STORE_UNIT_SIZE : 0;
    return { ...bounds, entries: Array.from({ length: listed }, (_, i) => cqEntryAt(buf, i)) };
  }

  /** The queue, or undefined when it does not exist; throws nothing for a name no queue can have. */
  private findQueue(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.consumeQueueStore.getConsumeQueue(topic, queueId);
  }

  private checkReadable(what: string): void {
    if (this.state !== 'running') {
      throw new RocketMQError(`message store is not running, so ${what} is forbidden`);
    }
  }

  getMessage(
    group: string,
    topic: string,
    queueId: number,
    offset: bigint,
    maxMsgNums: number,
    filter?: MessageFilter,
  ): Promise<GetMessageResult> {
    try {
      return Promise.resolve(this.getMessageSync(group, topic, queueId, offset, maxMsgNums, filter));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** getMessage without the promise (the pull path of a broker living in the same turn). */
  getMessageSync(
    _group: string,
    topic: string,
    queueId: number,
    offset: bigint,
    maxMsgNums: number,
    filter?: MessageFilter,
  ): GetMessageResult {
    this.checkReadable('getMessage');
    const begin = this.clock.now();
    const correct = (o: bigint): bigint => (this.getContext.correctOffsets ? o : offset);
    let result: GetMessageResult;
    const cq = this.findQueue(topic, queueId);
    if (cq !== undefined) {
      result = getMessageFromQueue(this.getContext, cq, offset, maxMsgNums, filter);
    } else if (isQueueName(topic, queueId)) {
      // Upstream creates the queue here and finds it empty; the answer is the same without creating it.
      result = emptyResult(GetMessageStatus.NO_MESSAGE_IN_QUEUE, correct(0n), 0n, 0n);
    } else {
      result = emptyResult(GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, correct(0n), 0n, 0n);
    }
    if (result.status === GetMessageStatus.FOUND) {
      this.stats.getMessageTimesTotalFound++;
      this.stats.getMessageTransferedMsgCount += result.messages.length;
    } else {
      this.stats.getMessageTimesTotalMiss++;
    }
    const elapsed = this.clock.now() - begin;
    if (elapsed > this.stats.getMessageEntireTimeMax) this.stats.getMessageEntireTimeMax = elapsed;
    return result;
  }

  getMaxOffsetInQueue(topic: string, queueId: number): bigint {
    return this.findQueue(topic, queueId)?.getMaxOffsetInQueue() ?? 0n;
  }

  getMinOffsetInQueue(topic: string, queueId: number): bigint {
    return this.findQueue(topic, queueId)?.getMinOffsetInQueue() ?? 0n;
  }

  /** Messages the queue holds (upstream `getMessageTotalInQueue`), -1 for no queue. */
  getMessageTotalInQueue(topic: string, queueId: number): bigint {
    return this.findQueue(topic, queueId)?.getMessageTotalInQueue() ?? -1n;
  }

  getCommitLogOffsetInQueue(topic: string, queueId: number, consumeQueueOffset: bigint): bigint {
    return this.findQueue(topic, queueId)?.getEntry(consumeQueueOffset)?.commitLogOffset ?? -1n;
  }

  getOffsetInQueueByTime(topic: string, queueId: number, timestamp: bigint): bigint {
    const cq = this.findQueue(topic, queueId);
    if (cq === undefined) return 0n;
    return cq.getOffsetInQueueByTime(timestamp, BigInt(this.commitLog.getMinOffset()), (phy, size) =>
      BigInt(this.commitLog.pickupStoreTimestamp(Number(phy), size)),
    );
  }

  /**
   * Store time of the queue's oldest message, -1 when none; without arguments, of the oldest message
   * in the commit log (upstream's two `getEarliestMessageTime`).
   */
  getEarliestMessageTime(): bigint;
  getEarliestMessageTime(topic: string, queueId: number): bigint;
  getEarliestMessageTime(topic?: string, queueId?: number): bigint {
    if (topic === undefined || queueId === undefined) {
      const min = this.commitLog.getMinOffset();
      if (min < 0) return -1n;
      return BigInt(this.commitLog.pickupStoreTimestamp(min, this.config.maxMessageSize * 2));
    }
    const cq = this.findQueue(topic, queueId);
    if (cq === undefined) return -1n;
    return this.storeTimeOfEntry(cq, cq.getMinOffsetInQueue());
  }

  getMessageStoreTimeStamp(topic: string, queueId: number, consumeQueueOffset: bigint): bigint {
    const cq = this.findQueue(topic, queueId);
    if (cq === undefined) return -1n;
    return this.storeTimeOfEntry(cq, consumeQueueOffset);
  }

  private storeTimeOfEntry(cq: ConsumeQueue, consumeQueueOffset: bigint): bigint {
    const entry = cq.getEntry(consumeQueueOffset);
    if (entry === undefined) return -1n;
    return BigInt(this.commitLog.pickupStoreTimestamp(Number(entry.commitLogOffset), entry.size));
  }

  /**
   * The stored record at `commitLogOffset` (its TOTALSIZE read first, as upstream). Ours: an offset
   * that is not the start of a message record (no magic code, implausible size) gives undefined
   * rather than arbitrary bytes.
   */
  selectOneMessageByOffset(commitLogOffset: bigint, size?: number): Buffer | undefined {
    if (commitLogOffset < 0n || commitLogOffset > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    const offset = Number(commitLogOffset);
    if (size !== undefined) return size > 0 ? this.commitLog.getMessage(offset, size) : undefined;
    const head = this.commitLog.getMessage(offset, 8);
    if (head === undefined) return undefined;
    const total = head.readInt32BE(0);
    const magic = head.readInt32BE(4);
    if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return undefined;
    if (total < MIN_STORED_RECORD_SIZE || total > this.config.maxMessageSize + RECORD_HEADROOM)
      return undefined;
    return this.commitLog.getMessage(offset, total);
  }

  /** The decoded message at `commitLogOffset` (upstream `lookMessageByOffset`), undefined if unreadable. */
  lookMessageByOffset(commitLogOffset: bigint, size?: number): MessageExt | undefined {
    const record = this.selectOneMessageByOffset(commitLogOffset, size);
    if (record === undefined) return undefined;
    try {
      return decodeMessage(record, 0, { decompress: false });
    } catch {
      return undefined;
    }
  }

  /**
   * Messages whose KEYS or UNIQ_KEY is `key` in `topic`, stored within [begin, end] (upstream
   * `queryMessage`: up to three index lookups, each ending where the previous one's oldest hit was).
   */
  async queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: bigint,
    end: bigint,
  ): Promise<QueryMessageResult> {
    const result: QueryMessageResult = {
      messages: [],
      indexLastUpdateTimestamp: 0n,
      indexLastUpdatePhyoffset: 0n,
      bufferTotalSize: 0,
    };
    let lastQueryMsgTime = end;
    for (let i = 0; i < 3; i++) {
      const found = this.indexService.queryOffset(topic, key, maxNum, begin, lastQueryMsgTime);
      if (found.phyOffsets.length === 0) break;
      const offsets = [...found.phyOffsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      result.indexLastUpdatePhyoffset = found.indexLastUpdatePhyoffset;
      result.indexLastUpdateTimestamp = found.indexLastUpdateTimestamp;
      for (let m = 0; m < offsets.length; m++) {
        const record = this.selectOneMessageByOffset(offsets[m] as bigint);
        if (record === undefined) continue;
        if (m === 0) {
          const storeTime = this.commitLog.pickupStoreTimestamp(Number(offsets[m]), record.length);
          if (storeTime >= 0) lastQueryMsgTime = BigInt(storeTime);
        }
        result.messages.push(record);
        result.bufferTotalSize += record.length;
      }
      if (result.bufferTotalSize > 0) break;
      if (lastQueryMsgTime < begin) break;
    }
    return result;
  }

  checkInDiskByConsumeOffset(topic: string, queueId: number, consumeOffset: bigint): boolean {
    const entry = this.findQueue(topic, queueId)?.getEntry(consumeOffset);
    if (entry === undefined) return false;
    return checkInDiskByCommitOffset(
      Number(entry.commitLogOffset),
      this.commitLog.getMaxOffset(),
      this.getContext.memory,
    );
  }

  /**
   * Offset message ids of the queue's messages in [minOffset, maxOffset] (upstream `getMessageIds`,
   * which returns nothing when the two meet).
   */
  getMessageIds(
    topic: string,
    queueId: number,
    minOffset: bigint,
    maxOffset: bigint,
    storeHost: HostAddress | undefined = this.brokerStoreHost,
  ): Map<string, bigint> {
    const ids = new Map<string, bigint>();
    const cq = this.findQueue(topic, queueId);
    if (cq === undefined || storeHost === undefined || this.state === 'stopped') return ids;
    const from = minOffset > cq.getMinOffsetInQueue() ? minOffset : cq.getMinOffsetInQueue();
    const to = maxOffset < cq.getMaxOffsetInQueue() ? maxOffset : cq.getMaxOffsetInQueue();
    if (from >= to) return ids;
    for (let o = from; o <= to; o++) {
      const entry = cq.getEntry(o);
      if (entry === undefined) break;
      ids.set(createOffsetMsgId(storeHost, entry.commitLogOffset), o);
    }
    return ids;
  }

  getMinPhyOffset(): bigint {
    return BigInt(this.commitLog.getMinOffset());
  }

  getMaxPhyOffset(): bigint {
    return BigInt(this.commitLog.getMaxOffset());
  }

  /** Commit-log bytes not yet dispatched (upstream `dispatchBehindBytes`): dispatch is synchronous. */
  dispatchBehindBytes(): bigint {
    return 0n;
  }

  /** The queue, if it exists (upstream `getConsumeQueue`). */
  getConsumeQueue(topic: string, queueId: number): ConsumeQueue | undefined {
    return this.findQueue(topic, queueId);
  }

  /**
   * Upstream `getRuntimeInfo`, in its put order: the stats service's figures, the used ratio of each
   * commit-log path's disk (and the least of them) and of the consume queues' disk, and the commit
   * log's bounds. No schedule service runs here, so no scheduleMessageOffset_<level> keys.
   */
  getRuntimeInfo(): Map<string, string> {
    const info = this.stats.getRuntimeInfo(this.clock.now());
    let least = Number.MAX_VALUE;
    for (const path of this.commitLog.mappedFileQueue.storePath.trim().split(';')) {
      const ratio = diskPartitionSpaceUsedPercent(path);
      info.set(`commitLogDiskRatio_${path}`, javaDoubleString(ratio));
      least = Math.min(least, ratio);
    }
    info.set('commitLogDiskRatio', javaDoubleString(least));
    const logics = diskPartitionSpaceUsedPercent(StorePath.consumeQueue(this.config.storePathRootDir));
    info.set('consumeQueueDiskRatio', javaDoubleString(logics));
    info.set('commitLogMinOffset', String(this.commitLog.getMinOffset()));
    info.set('commitLogMaxOffset', String(this.commitLog.getMaxOffset()));
    return info;
  }

  /** How long the commit-log write under way has taken (upstream `lockTimeMills`), 0 when idle. */
  lockTimeMills(): number {
    return this.commitLog.lockTimeMills();
  }

  /** Written commit-log bytes not yet flushed (upstream `CommitLog.remainHowManyDataToFlush`). */
  remainHowManyDataToFlush(): number {
    return this.commitLog.mappedFileQueue.remainHowManyDataToFlush();
  }

  // ---------------------------------------------------------------- topics and retention

  cleanUnusedTopic(keepTopics: ReadonlySet<string>): void {
    this.forgetQueues(this.consumeQueueStore.cleanUnusedTopic(keepTopics));
  }

  /** Upstream `cleanExpiredConsumerQueue`: drops queues whose last entry is below the commit log's start. */
  cleanExpiredConsumerQueue(): void {
    this.forgetQueues(
      this.consumeQueueStore.cleanExpiredConsumerQueue(BigInt(this.commitLog.getMinOffset())),
    );
  }

  private forgetQueues(removed: readonly QueueRef[]): void {
    for (const q of removed) this.commitLog.removeQueueFromTopicQueueTable(q.topic, q.queueId);
  }

  /** Upstream `executeDeleteFilesManually`: the next rounds delete expired files at any hour. */
  executeDeleteFilesManually(): void {
    this.cleanCommitLogService.executeDeleteFilesManually();
  }

  /**
   * One retention round (upstream `cleanFilesPeriodically`): expired commit-log files, then the
   * consume-queue and index files wholly below the commit log's new start. Resolves with the number
   * of commit-log files deleted.
   */
  async cleanFilesPeriodically(): Promise<number> {
    const deleted = await this.cleanCommitLogService.run();
    this.cleanConsumeQueues();
    return deleted;
  }

  /** Upstream CleanConsumeQueueService. */
  private cleanConsumeQueues(): void {
    const min = this.commitLog.getMinOffset();
    if (min <= 0) return;
    try {
      this.consumeQueueStore.deleteExpiredFiles(BigInt(min));
      this.indexService.deleteExpiredFile(BigInt(min));
    } catch (err) {
      this.log.warn('cleaning consume queue and index files failed', { error: describe(err) });
    }
  }

  onMessageArrived(listener: MessageArrivingListener, interest?: MessageArrivingInterest): void {
    this.dispatcher.addListener(listener, interest);
  }
}

/** Whether a consume queue could exist under this name (the consume queue's own checks). */
function isQueueName(topic: string, queueId: number): boolean {
  try {
    validateTopic(topic);
    validateQueueId(queueId);
    return true;
  } catch {
    return false;
  }
}
