/**
 * PopLongPollingService (upstream `longpolling/PopLongPollingService`): POP (and NOTIFICATION) requests
 * that found nothing wait here under `topic@group@queueId` (queueId -1 for a pop of every queue) until
 * a message arrives for them, their queue's FIFO block ends, or their poll time (`bornTime +
 * pollTime`) is over; then the request is re-run and answered (a timed-out one answers
 * POLLING_TIMEOUT). Limits answer POLLING_FULL: more than `popPollingSize` parked under one key,
 * `maxPopPollingSize` parked in all, or a new key beyond `popPollingMapSize` keys (upstream's cache
 * would evict an old key and its requests silently instead). A request whose connection closes is
 * released at once. Instead of upstream's 20 ms scan, one timer fires at the earliest end.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { buildPollingKey, isPopRetryTopicV2 } from '../../common/pop/key-builder.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode5xReused } from '../../remoting/protocol/response-code.js';
import type { Connection, ProcessorContext } from '../../remoting/transport/index.js';
import type { MessageFilter } from '../../store/message-store.js';
import type { BrokerConfig } from '../broker-config.js';
import { PopRequest, type PopResponder } from './pop-request.js';

export type PollingResult = 'POLLING_SUC' | 'POLLING_FULL' | 'POLLING_TIMEOUT' | 'NOT_POLLING';

/** What parking needs of a POP or NOTIFICATION header (upstream PollingHeader). */
export interface PollingHeader {
  readonly consumerGroup: string;
  readonly topic: string;
  readonly queueId: number;
  readonly bornTime: bigint;
  readonly pollTime: bigint;
}

export interface PopLongPollingServiceOptions {
  /** Read on every request, so UPDATE_BROKER_CONFIG applies at once. */
  readonly config: Pick<BrokerConfig, 'popPollingSize' | 'popPollingMapSize' | 'maxPopPollingSize'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Re-runs a parked request and answers it (upstream wakeUp's processRequest). */
  readonly wakeUp: (request: PopRequest) => void;
  /** NotificationProcessor's service wakes the newest request first. */
  readonly notifyLast?: boolean;
}

/** Drops the first-inserted entries of `map` until one more fits under `bound`. */
function evictOldest<K, V>(map: Map<K, V>, bound: number): void {
  for (const key of map.keys()) {
    if (map.size < bound) return;
    map.delete(key);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class PopLongPollingService {
  /** key -> parked requests, by ascending end time. */
  private readonly pollingMap = new Map<string, PopRequest[]>();
  /** topic -> groups that have parked on it (which keys an arrival may concern). */
  private readonly topicCidMap = new Map<string, Set<string>>();
  /** POP retry topic -> the topic and group it retries for. */
  private readonly retryTopics = new Map<string, { topic: string; group: string }>();
  private readonly watched = new WeakSet<Connection>();
  private total = 0;
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private running = false;

  constructor(private readonly options: PopLongPollingServiceOptions) {}

  start(): void {
    this.running = true;
  }

  /** Answers every parked request POLLING_TIMEOUT and parks no more (broker shutdown). */
  shutdown(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    for (const list of this.pollingMap.values())
      for (const r of list) this.release(r, 'the broker is shutting down');
    this.pollingMap.clear();
    this.total = 0;
  }

  /** Requests parked in all. */
  get totalPollingNum(): number {
    return this.total;
  }

  /** Requests parked under `topic@group@queueId` (POLLING_INFO). */
  pollingNum(topic: string, group: string, queueId: number): number {
    return this.pollingMap.get(buildPollingKey(topic, group, queueId))?.length ?? 0;
  }

  /**
   * Parks a request that found nothing (upstream `polling`). `retryTopic` is the group's POP retry
   * topic, whose arrivals wake the request too. On POLLING_SUC the request's handler promise is settled
   * later through `responder`.
   */
  polling(
    ctx: ProcessorContext,
    command: RemotingCommand,
    header: PollingHeader,
    messageFilter: MessageFilter | undefined,
    retryTopic: string | undefined,
    responder: PopResponder,
  ): PollingResult {
    if (header.pollTime <= 0n || !this.running) return 'NOT_POLLING';
    const config = this.options.config;
    // Bounded as upstream's topicCidMap cache (popPollingMapSize x 2): the oldest entry goes first.
    const bound = Math.max(1, config.popPollingMapSize * 2);
    let cids = this.topicCidMap.get(header.topic);
    if (cids === undefined) {
      evictOldest(this.topicCidMap, bound);
      cids = new Set();
      this.topicCidMap.set(header.topic, cids);
    }
    cids.add(header.consumerGroup);
    if (retryTopic !== undefined && !this.retryTopics.has(retryTopic)) {
      evictOldest(this.retryTopics, bound);
      this.retryTopics.set(retryTopic, { topic: header.topic, group: header.consumerGroup });
    }
    if (this.total >= config.maxPopPollingSize) return 'POLLING_FULL';
    const expired = Number(header.bornTime + header.pollTime);
    const key = buildPollingKey(header.topic, header.consumerGroup, header.queueId);
    const request = new PopRequest(command, ctx, expired, messageFilter, key, responder);
    if (request.isTimeout(this.options.clock.now())) return 'POLLING_TIMEOUT';
    let list = this.pollingMap.get(key);
    if (list === undefined) {
      if (this.pollingMap.size >= config.popPollingMapSize) return 'POLLING_FULL';
      list = [];
      this.pollingMap.set(key, list);
    }
    if (list.length > config.popPollingSize) return 'POLLING_FULL';
    // Keep the list ordered by end time (upstream's skip list comparator).
    let i = list.length;
    while (i > 0 && (list[i - 1] as PopRequest).expired > expired) i--;
    list.splice(i, 0, request);
    this.total++;
    this.watch(ctx.connection);
    this.scheduleAt(expired - 50);
    return 'POLLING_SUC';
  }

  /**
   * A message arrived (the store's dispatch): wakes, per group parked on its topic, one request of
   * the all-queues key and one of the queue's key whose filter accepts it. A message on a POP retry
   * topic wakes the group's requests on the original topic. `record` reads the stored record for
   * filters that need it.
   */
  notifyMessageArriving(
    topic: string,
    queueId: number,
    tagsCode: bigint | undefined,
    record: (() => Buffer | undefined) | undefined,
  ): void {
    if (this.total === 0) return;
    const retry = this.retryTopics.get(topic);
    if (retry !== undefined) {
      this.notifyGroup(retry.topic, retry.group);
      return;
    }
    // A V2 retry topic names its topic after the `+` (KeyBuilder.parseNormalTopic(retryTopic)).
    const notifyTopic = isPopRetryTopicV2(topic) ? topic.slice(topic.indexOf('+') + 1) : topic;
    const cids = this.topicCidMap.get(notifyTopic);
    if (cids === undefined) return;
    for (const cid of cids) {
      if (queueId >= 0) this.notifyQueue(notifyTopic, -1, cid, tagsCode, record);
      this.notifyQueue(notifyTopic, queueId, cid, tagsCode, record);
    }
  }

  /** Wakes one request of every key of topic@group (a retry arrival, a FIFO queue unblocked). */
  notifyGroup(topic: string, group: string): void {
    const prefix = `${topic}@${group}@`;
    for (const key of [...this.pollingMap.keys()]) {
      if (key.startsWith(prefix)) this.wakeOne(key, undefined, undefined);
    }
  }

  /** Upstream notifyMessageArriving(topic, queueId, cid): wakes one request of that key. */
  notifyQueue(
    topic: string,
    queueId: number,
    group: string,
    tagsCode?: bigint,
    record?: () => Buffer | undefined,
  ): boolean {
    return this.wakeOne(buildPollingKey(topic, group, queueId), tagsCode, record);
  }

  private wakeOne(
    key: string,
    tagsCode: bigint | undefined,
    record: (() => Buffer | undefined) | undefined,
  ): boolean {
    const list = this.pollingMap.get(key);
    if (list === undefined) return false;
    let request: PopRequest | undefined;
    while (list.length > 0) {
      const r = (this.options.notifyLast ? list.pop() : list.shift()) as PopRequest;
      this.total--;
      if (r.channelOpen) {
        request = r;
        break;
      }
      this.release(r, 'connection closed');
    }
    if (list.length === 0) this.pollingMap.delete(key);
    if (request === undefined) return false;
    const filter = request.messageFilter;
    if (filter !== undefined && (tagsCode !== undefined || record !== undefined)) {
      let match = filter.isMatchedByConsumeQueue(tagsCode);
      if (match && record !== undefined) match = filter.isMatchedByCommitLog(record());
      if (!match) {
        this.put(key, request);
        return false;
      }
    }
    return this.wake(request);
  }

  private put(key: string, request: PopRequest): void {
    let list = this.pollingMap.get(key);
    if (list === undefined) {
      list = [];
      this.pollingMap.set(key, list);
    }
    let i = list.length;
    while (i > 0 && (list[i - 1] as PopRequest).expired > request.expired) i--;
    list.splice(i, 0, request);
    this.total++;
  }

  private wake(request: PopRequest): boolean {
    if (!request.complete()) return false;
    if (!request.channelOpen) return false;
    try {
      this.options.wakeUp(request);
    } catch (error) {
      this.options.logger.error('pop wakeUp failed', { error: describe(error) });
      return false;
    }
    return true;
  }

  /** Settles a request that will not be re-run (closed connection, shutdown). */
  private release(request: PopRequest, why: string): void {
    if (!request.complete()) return;
    request.respond(
      createResponse(request.remotingCommand, ResponseCode5xReused.POLLING_TIMEOUT, { remark: why }),
    );
  }

  private watch(connection: Connection): void {
    if (this.watched.has(connection)) return;
    this.watched.add(connection);
    connection.once('close', () => this.dropConnection(connection));
  }

  /** Releases the requests parked by a connection that closed. */
  private dropConnection(connection: Connection): void {
    for (const [key, list] of [...this.pollingMap]) {
      const keep = list.filter((r) => r.ctx.connection !== connection);
      if (keep.length === list.length) continue;
      for (const r of list) if (r.ctx.connection === connection) this.release(r, 'connection closed');
      this.total -= list.length - keep.length;
      if (keep.length === 0) this.pollingMap.delete(key);
      else this.pollingMap.set(key, keep);
    }
  }

  private scheduleAt(at: number): void {
    if (at >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.options.clock.setTimeout(this.onTimer, Math.max(1, at - this.options.clock.now()));
  }

  /** Wakes every request whose poll is over, then sleeps until the next end. */
  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (!this.running) return;
    const now = this.options.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [key, list] of [...this.pollingMap]) {
      while (list.length > 0 && (list[0] as PopRequest).isTimeout(now)) {
        const r = list.shift() as PopRequest;
        this.total--;
        if (r.channelOpen) this.wake(r);
        else this.release(r, 'connection closed');
      }
      if (list.length === 0) this.pollingMap.delete(key);
      else next = Math.min(next, (list[0] as PopRequest).expired - 50);
    }
    if (next !== Number.POSITIVE_INFINITY) this.scheduleAt(next);
  };
}
