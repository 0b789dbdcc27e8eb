/**
 * RebalanceLockManager (`broker/.../client/rebalance/RebalanceLockManager.java`): which client of a
 * consumer group holds each message queue, for orderly consumers (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ).
 * A lock lasts lockMaxLiveTime after its holder last locked it again (clients renew every 20 s);
 * after that any client of the group may take it. An expired lock stays in the table until someone
 * takes it or its holder unlocks it, as upstream.
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { MessageQueue } from '../../common/message/message-queue.js';

/** Upstream reads it from the system property `rocketmq.broker.rebalance.lockMaxLiveTime`. */
export const REBALANCE_LOCK_MAX_LIVE_TIME = 60_000;

export interface RebalanceLockManagerOptions {
  clock: Clock;
  logger?: Logger;
  /** ms a lock lasts without renewal [60 s]. */
  lockMaxLiveTime?: number;
}

interface LockEntry {
  readonly mq: MessageQueue;
  clientId: string;
  lastUpdateTimestamp: number;
}

/** Entries created before the first sweep of expired locks. */
const MIN_SWEEP_INTERVAL_ENTRIES = 1024;

export class RebalanceLockManager {
  /** group -> MessageQueue.key -> lock. */
  private readonly table = new Map<string, Map<string, LockEntry>>();
  /**
   * Upstream keeps an expired lock until its queue is locked or unlocked again, so queues a client
   * names once (any topic, any id) would stay forever. An expired entry means the same as none, so
   * they are swept once as many entries were created as lived after the last sweep: the table stays
   * within twice the live locks, at an amortised constant cost per lock.
   */
  private createdSinceSweep = 0;
  private sweepAfter = MIN_SWEEP_INTERVAL_ENTRIES;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  readonly lockMaxLiveTime: number;

  constructor(options: RebalanceLockManagerOptions) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.lockMaxLiveTime = options.lockMaxLiveTime ?? REBALANCE_LOCK_MAX_LIVE_TIME;
  }

  /** Locks (or renews) `mq` for `clientId`; false while another client's lock on it lasts. */
  tryLock(group: string, mq: MessageQueue, clientId: string): boolean {
    return this.tryLockBatch(group, [mq], clientId).length === 1;
  }

  /**
   * Locks or renews each queue for `clientId` and returns those it now holds, each once: first the
   * ones it already held, then the ones it got, each in the given order (the order upstream fills
   * its result set in).
   */
  tryLockBatch(group: string, mqs: Iterable<MessageQueue>, clientId: string): MessageQueue[] {
    const now = this.clock.now();
    const renewed: MessageQueue[] = [];
    const others: MessageQueue[] = [];
    const seen = new Set<string>();
    let locks = this.table.get(group);
    for (const mq of mqs) {
      if (seen.has(mq.key)) continue;
      seen.add(mq.key);
      const entry = locks?.get(mq.key);
      if (entry !== undefined && entry.clientId === clientId && !this.isExpired(entry, now)) {
        entry.lastUpdateTimestamp = now;
        renewed.push(mq);
      } else {
        others.push(mq);
      }
    }
    if (others.length === 0) return renewed;
    if (locks === undefined) {
      locks = new Map();
      this.table.set(group, locks);
    }
    const got: MessageQueue[] = [];
    for (const mq of others) {
      const entry = locks.get(mq.key);
      if (entry === undefined) {
        locks.set(mq.key, { mq, clientId, lastUpdateTimestamp: now });
        this.createdSinceSweep++;
        this.logger?.info(
          'tryLockBatch, message queue not locked, I got it',
          this.fields(group, mq, clientId),
        );
        got.push(mq);
      } else if (this.isExpired(entry, now)) {
        const oldClientId = entry.clientId;
        entry.clientId = clientId;
        entry.lastUpdateTimestamp = now;
        this.logger?.warn('tryLockBatch, message queue lock expired, I got it', {
          ...this.fields(group, mq, clientId),
          oldClientId,
        });
        got.push(mq);
      } else {
        this.logger?.warn('tryLockBatch, message queue locked by other client', {
          ...this.fields(group, mq, clientId),
          otherClientId: entry.clientId,
        });
      }
    }
    if (this.createdSinceSweep >= this.sweepAfter) this.sweepExpired(now);
    return renewed.concat(got);
  }

  /** Locks held in the table, expired ones not yet swept included. */
  get size(): number {
    let n = 0;
    for (const locks of this.table.values()) n += locks.size;
    return n;
  }

  private sweepExpired(now: number): void {
    let live = 0;
    for (const [group, locks] of this.table) {
      for (const [key, entry] of locks) if (this.isExpired(entry, now)) locks.delete(key);
      if (locks.size === 0) this.table.delete(group);
      live += locks.size;
    }
    this.createdSinceSweep = 0;
    this.sweepAfter = Math.max(MIN_SWEEP_INTERVAL_ENTRIES, live);
  }

  /** Releases the queues `clientId` holds (expired or not); another client's locks are kept. */
  unlockBatch(group: string, mqs: Iterable<MessageQueue>, clientId: string): void {
    const locks = this.table.get(group);
    if (locks === undefined) {
      this.logger?.warn('unlockBatch, group not exist', { group, clientId });
      return;
    }
    for (const mq of mqs) {
      const entry = locks.get(mq.key);
      if (entry === undefined) {
        this.logger?.warn('unlockBatch, but mq not locked', this.fields(group, mq, clientId));
      } else if (entry.clientId === clientId) {
        locks.delete(mq.key);
        this.logger?.info('unlockBatch', this.fields(group, mq, clientId));
      } else {
        this.logger?.warn('unlockBatch, but mq locked by other client', {
          ...this.fields(group, mq, clientId),
          otherClientId: entry.clientId,
        });
      }
    }
    // Unlike upstream, an emptied group goes: nothing can tell an empty table from a missing one.
    if (locks.size === 0) this.table.delete(group);
  }

  /** The client whose lock on `mq` lasts, if any (does not renew it). */
  lockHolder(group: string, mq: MessageQueue): string | undefined {
    const entry = this.table.get(group)?.get(mq.key);
    if (entry === undefined || this.isExpired(entry, this.clock.now())) return undefined;
    return entry.clientId;
  }

  private isExpired(entry: LockEntry, now: number): boolean {
    return now - entry.lastUpdateTimestamp > this.lockMaxLiveTime;
  }

  private fields(group: string, mq: MessageQueue, clientId: string) {
    return { group, clientId, topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId };
  }
}
