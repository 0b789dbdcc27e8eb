/**
 * The store's side of the commit log's dispatch (upstream CommitLogDispatcherBuildConsumeQueue,
 * CommitLogDispatcherBuildIndex and the reput's arriving notice): each record, or a batch's records
 * together, goes to the consume queues, the index and the message arriving listeners. A consume-queue
 * failure propagates: the commit log then refuses appends, as upstream's logics-queue error does. An
 * index failure is logged once and indexing stops, as upstream.
 */
import type { Logger } from '../common/logger.js';
import type { MessageStoreConfig } from './config.js';
import type { ConsumeQueueStore } from './consume-queue-store.js';
import type { DispatchBatch, DispatchRequest } from './dispatch-request.js';
import type { IndexService } from './index-service.js';
import type { MessageArrivingInterest, MessageArrivingListener } from './message-store.js';

export class StoreDispatcher {
  /** Records below this commit-log offset are already indexed (see refreshIndexFrom). */
  indexFrom = 0;
  /** Set while the commit log's recovery dispatches: skip consume-queue entries already present. */
  recovering = false;
  private readonly listeners: MessageArrivingListener[] = [];
  /** The interest of each listener (same index), if it told one. */
  private readonly interests: Array<MessageArrivingInterest | undefined> = [];
  private indexFailureLogged = false;

  constructor(
    private readonly config: MessageStoreConfig,
    private readonly consumeQueueStore: ConsumeQueueStore,
    private readonly indexService: IndexService,
    private readonly log: Logger,
    /** Listeners hear of records only while the store runs (not during recovery or the reput). */
    private readonly isRunning: () => boolean,
  ) {}

  addListener(listener: MessageArrivingListener, interest?: MessageArrivingInterest): void {
    this.listeners.push(listener);
    this.interests.push(interest);
  }

  dispatch(request: DispatchRequest): void {
    if (!this.recovering || !this.inConsumeQueue(request)) this.consumeQueueStore.dispatch(request);
    if (this.config.messageIndexEnable && Number(request.commitLogOffset) >= this.indexFrom) {
      this.buildIndex(request);
    }
    if (!this.isRunning()) return;
    for (const listener of this.listeners) this.tell(listener, request);
  }

  /**
   * A batch's records (all in one queue), as dispatch would handle them one by one: the consume
   * queue and the index take them together; each arriving listener still sees every record, unless
   * its interest says it has no use for the batch's queue.
   */
  dispatchBatch(batch: DispatchBatch): void {
    if (this.recovering) {
      for (let i = 0; i < batch.count; i++) this.dispatch(batch.request(i));
      return;
    }
    this.consumeQueueStore.dispatchBatch(batch);
    if (this.config.messageIndexEnable) {
      if (batch.commitLogOffset >= this.indexFrom) {
        this.guardIndex(batch.commitLogOffset, () => this.indexService.buildIndexBatch(batch));
      } else {
        for (let i = 0; i < batch.count; i++) {
          const request = batch.request(i);
          if (Number(request.commitLogOffset) >= this.indexFrom) this.buildIndex(request);
        }
      }
    }
    if (!this.isRunning()) return;
    for (let l = 0; l < this.listeners.length; l++) {
      const listener = this.listeners[l] as MessageArrivingListener;
      if (this.interests[l]?.(batch.topic, batch.queueId) === false) continue;
      for (let i = 0; i < batch.count; i++) this.tell(listener, batch.request(i));
    }
  }

  /** The start-up reput of one record: what the consume queues (from cqFrom) and the index miss. */
  reputRecord(request: DispatchRequest, cqFrom: number): void {
    const offset = Number(request.commitLogOffset);
    if (offset >= cqFrom && !this.inConsumeQueue(request)) this.consumeQueueStore.dispatch(request);
    if (this.config.messageIndexEnable && offset >= this.indexFrom) this.buildIndex(request);
  }

  /**
   * First commit-log offset the reput must index: the last record the index holds an entry for, whose
   * keys may be only partly indexed (upstream's buildIndex also starts there).
   */
  refreshIndexFrom(): void {
    const files = this.indexService.indexFiles();
    const last = files.at(-1);
    if (last === undefined) {
      this.indexFrom = 0;
      return;
    }
    const end = Number(last.getEndPhyOffset());
    const hasEntries = end > 0 || files.some((f) => f.getIndexCount() > 1);
    // The record at the end offset is indexed again (IndexService skips the keys it already has):
    // after a crash its keys may span a kept full file and a dropped one.
    this.indexFrom = hasEntries ? end : 0;
  }

  /**
   * Whether the queue already holds the record's entry. Upstream only compares commit-log offsets,
   * and a queue whose recovered files start with a lost entry has no such offset (-1); its
   * putMessagePositionInfo then writes a re-dispatched queue offset 0 over the first entry of the
   * last file. The queue offset settles it.
   */
  private inConsumeQueue(request: DispatchRequest): boolean {
    const cq = this.consumeQueueStore.getConsumeQueue(request.topic, request.queueId);
    if (cq === undefined) return false;
    return (
      request.consumeQueueOffset < cq.getMaxOffsetInQueue() ||
      request.commitLogOffset + BigInt(request.msgSize) <= cq.getMaxPhysicOffset()
    );
  }

  private buildIndex(request: DispatchRequest): void {
    this.guardIndex(request.commitLogOffset, () => this.indexService.buildIndex(request));
  }

  private guardIndex(offset: bigint | number, build: () => void): void {
    if (this.indexService.failed !== undefined) return;
    try {
      build();
    } catch (err) {
      if (!this.indexFailureLogged) {
        this.indexFailureLogged = true;
        this.log.error('building the index failed; messages are stored without index entries', {
          offset,
          error: describe(err),
        });
      }
    }
  }

  private tell(listener: MessageArrivingListener, request: DispatchRequest): void {
    try {
      listener(request);
    } catch (err) {
      this.log.warn('message arriving listener failed', { error: describe(err) });
    }
  }
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
