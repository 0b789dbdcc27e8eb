/**
 * Which compiled expression each consumer group uses on each topic (upstream `broker/.../filter/
 * ConsumerFilterManager.java`, `ConsumerFilterData.java`), kept per (topic, group) with the client's
 * subscription version, so an expression is compiled once per version rather than per pull. Only
 * non-TAG subscriptions are kept. In memory only: no bloom filter data and no consumerFilter.json
 * (upstream persists it only for the bit maps it computes at store time, which we do not compute).
 */

import { stringifyFastjson } from '../common/fastjson/index.js';
import { LogRateLimiter } from '../common/log-rate-limiter.js';
import type { Logger } from '../common/logger.js';
import type { SubscriptionData } from '../common/protocol/subscription-data.js';
import { isTagType } from './filter-api.js';
import { type CompiledFilterExpression, FilterFactory } from './filter-factory.js';
import type { ConsumerFilterLookup } from './message-filter.js';
import { filterExpressionType } from './named-expression.js';

/** One group's filter on one topic. `deadTime >= bornTime` means the group stopped using it. */
export class ConsumerFilterData {
  deadTime = 0;

  constructor(
    readonly consumerGroup: string,
    readonly topic: string,
    readonly expression: string,
    readonly expressionType: string,
    readonly compiledExpression: CompiledFilterExpression,
    readonly bornTime: number,
    /** The subscription's subVersion when it was registered (or last confirmed). */
    public clientVersion: bigint,
  ) {}

  isDead(): boolean {
    return this.deadTime >= this.bornTime;
  }

  /** Milliseconds since it died, -1 while alive. */
  howLongAfterDeath(now: number): number {
    return this.isDead() ? now - this.deadTime : -1;
  }
}

/**
 * `JSON.toJSONString(filterData, true)` as QUERY_CONSUME_QUEUE shows it: the bean's fields sorted, plus
 * the `dead` property of its isDead getter; the compiled expression is transient, and we keep no bloom
 * filter data (null, so absent). A TAG subscription has no filter data: `null`.
 */
export function consumerFilterDataJson(data: ConsumerFilterData | undefined): string {
  if (data === undefined) return 'null';
  return stringifyFastjson(
    {
      bornTime: data.bornTime,
      clientVersion: data.clientVersion,
      consumerGroup: data.consumerGroup,
      dead: data.isDead(),
      deadTime: data.deadTime,
      expression: data.expression,
      expressionType: data.expressionType,
      topic: data.topic,
    },
    { pretty: true },
  );
}

/**
 * ConsumerFilterManager.build without the swallowed error: undefined for a TAG type, the compiled
 * filter data otherwise; throws FilterCompileError when the expression does not compile.
 */
export function buildConsumerFilterData(
  topic: string,
  consumerGroup: string,
  expression: string,
  type: string,
  clientVersion: bigint,
  now: number,
  factory: FilterFactory,
): ConsumerFilterData | undefined {
  if (isTagType(type)) return undefined;
  const compiled = factory.compile(type, expression);
  return new ConsumerFilterData(consumerGroup, topic, expression, type, compiled, now, clientVersion);
}

/** Upstream's filterDataCleanTimeSpan default: a dead filter is forgotten after 24 hours. */
export const DEFAULT_FILTER_DATA_CLEAN_TIME_SPAN = 24 * 3600 * 1000;

export interface ConsumerFilterManagerOptions {
  readonly factory?: FilterFactory;
  readonly clock?: { now(): number };
  readonly filterDataCleanTimeSpan?: number;
  /** Where SQL92 parse and evaluation failures are logged; none logs nothing. */
  readonly logger?: Logger;
  /** At most one failure line per kind per this many ms [60000]; a consumer's expression may fail on every message. */
  readonly failureLogIntervalMs?: number;
}

/** Upstream logs each failure; one line a minute per kind, with the count of those dropped, is ours. */
export const DEFAULT_FILTER_FAILURE_LOG_INTERVAL_MS = 60_000;

export class ConsumerFilterManager implements ConsumerFilterLookup {
  private readonly byTopic = new Map<string, Map<string, ConsumerFilterData>>();
  readonly factory: FilterFactory;
  private readonly clock: { now(): number };
  /** ms a group's filter data outlives its last consumer (broker.conf filterDataCleanTimeSpan). */
  readonly cleanTimeSpan: number;

  private readonly logger: Logger | undefined;
  private readonly failureLimiter: LogRateLimiter;

  constructor(options: ConsumerFilterManagerOptions = {}) {
    this.logger = options.logger;
    this.failureLimiter = new LogRateLimiter(
      options.failureLogIntervalMs ?? DEFAULT_FILTER_FAILURE_LOG_INTERVAL_MS,
      () => this.clock.now(),
    );
    this.factory = options.factory ?? new FilterFactory();
    this.clock = options.clock ?? { now: () => Date.now() };
    this.cleanTimeSpan = options.filterDataCleanTimeSpan ?? DEFAULT_FILTER_DATA_CLEAN_TIME_SPAN;
  }

  /** For CHECK_CLIENT_CONFIG: throws FilterCompileError (code SUBSCRIPTION_PARSE_FAILED) with the reason. */
  compile(expressionType: string, expression: string): void {
    this.factory.compile(expressionType, expression);
  }

  private tryBuild(topic: string, group: string, expression: string, type: string, version: bigint) {
    try {
      return buildConsumerFilterData(topic, group, expression, type, version, this.clock.now(), this.factory);
    } catch (error) {
      // Upstream logs the parse error and keeps no filter data; the pull then answers FILTER_DATA_NOT_EXIST.
      this.failed('parse', 'parse filter data failed', topic, group, error);
      return undefined;
    }
  }

  /** An expression of `group` on `topic` threw on a message: logged, rate-limited; the message did not match. */
  evaluationFailed(topic: string, group: string, error: unknown): void {
    this.failed(
      'evaluate',
      'filter expression evaluation failed, the message does not match',
      topic,
      group,
      error,
    );
  }

  private failed(kind: string, msg: string, topic: string, group: string, error: unknown): void {
    if (this.logger === undefined) return;
    const dropped = this.failureLimiter.take(kind);
    if (dropped === undefined) return;
    const text = error instanceof Error ? error.message : String(error);
    this.logger.warn(msg, { topic, group, error: text, dropped }, error);
  }

  /**
   * A heartbeat's subscriptions for a group: each non-TAG one is registered (a class-filter one as
   * NAMED), and the group's filters on topics it no longer subscribes to are marked dead.
   */
  register(consumerGroup: string, subscriptions: readonly SubscriptionData[]): void {
    for (const s of subscriptions) {
      this.registerFilter(s.topic, consumerGroup, s.subString, filterExpressionType(s), s.subVersion);
    }
    const now = this.clock.now();
    for (const data of this.getByGroup(consumerGroup)) {
      if (!data.isDead() && !subscriptions.some((s) => s.topic === data.topic)) data.deadTime = now;
    }
  }

  /**
   * One subscription (FilterDataMapByTopic.register). Returns whether the stored filter is now this
   * one: a newer version replaces (recompiling only if the expression or type changed), the same
   * version revives a dead filter, an older one is ignored; a newer expression that does not compile
   * removes the old filter.
   */
  registerFilter(
    topic: string,
    consumerGroup: string,
    expression: string,
    type: string,
    clientVersion: bigint,
  ): boolean {
    if (isTagType(type) || expression.length === 0) return false;
    let groups = this.byTopic.get(topic);
    if (groups === undefined) {
      groups = new Map();
      this.byTopic.set(topic, groups);
    }
    const old = groups.get(consumerGroup);
    if (old === undefined) {
      const data = this.tryBuild(topic, consumerGroup, expression, type, clientVersion);
      if (data === undefined) return false;
      groups.set(consumerGroup, data);
      return true;
    }
    if (clientVersion <= old.clientVersion) {
      if (clientVersion === old.clientVersion && old.isDead()) {
        old.deadTime = 0;
        return true;
      }
      return false;
    }
    if (old.expression !== expression || old.expressionType !== type) {
      const data = this.tryBuild(topic, consumerGroup, expression, type, clientVersion);
      if (data === undefined) {
        groups.delete(consumerGroup);
        return false;
      }
      groups.set(consumerGroup, data);
      return true;
    }
    old.clientVersion = clientVersion;
    if (old.isDead()) old.deadTime = 0;
    return true;
  }

  /** The group went away: its filters are marked dead (and forgotten by clean() later). */
  unregister(consumerGroup: string): void {
    const now = this.clock.now();
    for (const groups of this.byTopic.values()) {
      const data = groups.get(consumerGroup);
      if (data !== undefined && !data.isDead()) data.deadTime = now;
    }
  }

  get(topic: string, consumerGroup: string): ConsumerFilterData | undefined {
    return this.byTopic.get(topic)?.get(consumerGroup);
  }

  getByTopic(topic: string): ConsumerFilterData[] {
    return [...(this.byTopic.get(topic)?.values() ?? [])];
  }

  getByGroup(consumerGroup: string): ConsumerFilterData[] {
    const out: ConsumerFilterData[] = [];
    for (const groups of this.byTopic.values()) {
      const data = groups.get(consumerGroup);
      if (data !== undefined) out.push(data);
    }
    return out;
  }

  /** Forgets filters dead for at least filterDataCleanTimeSpan, and topics left without any. */
  clean(): void {
    const now = this.clock.now();
    for (const [topic, groups] of this.byTopic) {
      for (const [group, data] of groups) {
        if (data.howLongAfterDeath(now) >= this.cleanTimeSpan) groups.delete(group);
      }
      if (groups.size === 0) this.byTopic.delete(topic);
    }
  }
}
