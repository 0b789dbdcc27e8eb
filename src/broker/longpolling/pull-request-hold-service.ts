/**
 * PullRequestHoldService (upstream `broker/.../longpolling/PullRequestHoldService.java`, 4.9.8): pulls
 * that found nothing wait here per (topic, queue). A held pull is answered when a message it wants
 * arrives on its queue (notifyMessageArriving from the store's dispatch), or on the periodic check
 * (every longPollingCheckInterval [5 s] with long polling, every shortPollingTimeMills [1 s] without)
 * once its queue has grown or its time is up. Answering means re-running the pull without suspension
 * (the `wakeUp` callback). A request whose connection has closed is dropped instead.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import { MixAll } from '../../common/constants.js';
import type { Logger } from '../../common/logger.js';
import { isTagType } from '../../common/protocol/check-client-request-body.js';
import { filterExpressionType } from '../../filter/named-expression.js';
import type { MessageStore } from '../../store/message-store.js';
import type { BrokerConfig } from '../broker-config.js';
import { ManyPullRequest } from './many-pull-request.js';
import type { PullRequest } from './pull-request.js';

export interface PullRequestHoldServiceOptions {
  /** Read on every reschedule, so UPDATE_BROKER_CONFIG applies from the next check. */
  readonly config: Pick<
    BrokerConfig,
    'longPollingEnable' | 'shortPollingTimeMills' | 'longPollingCheckInterval'
  >;
  readonly store: Pick<MessageStore, 'getMaxOffsetInQueue' | 'selectOneMessageByOffset'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Re-runs a held request without suspension and answers it (upstream executeRequestWhenWakeup). */
  readonly wakeUp: (request: PullRequest) => void;
}

/** Upstream logs a check that took longer than this. */
const SLOW_CHECK_MS = 5000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether the filter needs the stored record to decide: SQL92 and NAMED subscriptions (class-filter
 * ones included), and retry topics (the retry filter reads the message's original topic). Tag filters
 * pass every record, so the record is not read for them.
 */
function needsRecord(request: PullRequest): boolean {
  const sub = request.subscriptionData;
  return !isTagType(filterExpressionType(sub)) || sub.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
}

export class PullRequestHoldService {
  /** topic -> queueId -> held requests; a queue's entry goes once nothing is held on it. */
  private readonly table = new Map<string, Map<number, ManyPullRequest>>();
  private readonly options: PullRequestHoldServiceOptions;
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(options: PullRequestHoldServiceOptions) {
    this.options = options;
  }

  /** Requests held right now. */
  get heldCount(): number {
    let n = 0;
    for (const queues of this.table.values()) for (const mpr of queues.values()) n += mpr.size;
    return n;
  }

  /** Whether a pull is held on (topic, queueId), which a message arriving there may wake. */
  isHolding(topic: string, queueId: number): boolean {
    return (this.table.get(topic)?.get(queueId)?.size ?? 0) > 0;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
    this.options.logger.info('PullRequestHoldService service started');
  }

  /**
   * Stops the checks and drops every held request, as upstream does: the servers close their
   * connections right after, so no held request is answered.
   */
  shutdown(): void {
    if (!this.running) return;
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    const dropped = this.heldCount;
    this.table.clear();
    this.options.logger.info('PullRequestHoldService service end', { dropped });
  }

  /** Holds `pullRequest` on the queue; once stopped it is answered at once instead. */
  suspendPullRequest(topic: string, queueId: number, pullRequest: PullRequest): void {
    if (!this.running) {
      this.wake(pullRequest);
      return;
    }
    let queues = this.table.get(topic);
    if (queues === undefined) {
      queues = new Map();
      this.table.set(topic, queues);
    }
    let mpr = queues.get(queueId);
    if (mpr === undefined) {
      mpr = new ManyPullRequest();
      queues.set(queueId, mpr);
    }
    mpr.addPullRequest(pullRequest);
  }

  /** Every held queue against its current max offset (the periodic check). */
  checkHoldRequest(): void {
    const store = this.options.store;
    for (const [topic, queues] of this.table) {
      for (const queueId of queues.keys()) {
        try {
          this.notifyMessageArriving(topic, queueId, store.getMaxOffsetInQueue(topic, queueId));
        } catch (error) {
          this.options.logger.error('check hold request failed', { topic, queueId, error: describe(error) });
        }
      }
    }
  }

  /**
   * A message arrived on (topic, queueId), or the check runs: `maxOffset` is the queue's new end.
   * From the store's dispatch, `tagsCode` and `commitLogOffset` describe the arrived message, so a held
   * pull wakes only for a message its filter accepts. Without them (the check) any growth wakes it.
   */
  notifyMessageArriving(
    topic: string,
    queueId: number,
    maxOffset: bigint,
    tagsCode?: bigint,
    commitLogOffset?: bigint,
  ): void {
    if (this.table.size === 0) return;
    const queues = this.table.get(topic);
    const mpr = queues?.get(queueId);
    if (queues === undefined || mpr === undefined) return;
    const requests = mpr.cloneListAndClear();
    if (requests === undefined) return;
    const store = this.options.store;
    const now = this.options.clock.now();
    // The arrived record, read at most once and only for a filter that looks at it.
    let record: Buffer | undefined;
    let recordRead = false;
    const replay: PullRequest[] = [];
    for (const request of requests) {
      if (!request.channelOpen) continue;
      let newestOffset = maxOffset;
      if (newestOffset <= request.pullFromThisOffset)
        newestOffset = store.getMaxOffsetInQueue(topic, queueId);
      if (newestOffset > request.pullFromThisOffset) {
        let match = request.messageFilter.isMatchedByConsumeQueue(tagsCode);
        if (match && commitLogOffset !== undefined && needsRecord(request)) {
          if (!recordRead) {
            record = store.selectOneMessageByOffset(commitLogOffset);
            recordRead = true;
          }
          match = request.messageFilter.isMatchedByCommitLog(record);
        }
        if (match) {
          this.wake(request);
          continue;
        }
      }
      if (now >= request.suspendTimestamp + request.timeoutMillis) {
        this.wake(request);
        continue;
      }
      replay.push(request);
    }
    if (replay.length > 0) mpr.addPullRequests(replay);
    else if (mpr.size === 0) {
      queues.delete(queueId);
      if (queues.size === 0) this.table.delete(topic);
    }
  }

  private wake(request: PullRequest): void {
    try {
      this.options.wakeUp(request);
    } catch (error) {
      this.options.logger.error('execute request when wakeup failed', { error: describe(error) });
    }
  }

  private schedule(): void {
    const config = this.options.config;
    const interval = config.longPollingEnable
      ? config.longPollingCheckInterval
      : config.shortPollingTimeMills;
    // A zero or broken interval would spin; one millisecond is the floor.
    this.timer = this.options.clock.setTimeout(
      this.onTimer,
      Number.isFinite(interval) ? Math.max(1, interval) : 1,
    );
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    if (!this.running) return;
    const begin = this.options.clock.now();
    try {
      this.checkHoldRequest();
    } catch (error) {
      this.options.logger.warn('PullRequestHoldService service has exception', { error: describe(error) });
    }
    const cost = this.options.clock.now() - begin;
    if (cost > SLOW_CHECK_MS)
      this.options.logger.info('[NOTIFYME] check hold request cost', { costMs: cost });
    if (this.running) this.schedule();
  };
}
