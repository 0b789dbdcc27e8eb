/**
 * ProcessQueue: the messages pulled from one queue and not yet consumed, with the counts flow
 * control reads (messages, bytes, offset span), the min-offset rule of progress, the orderly
 * consumption's taken-but-not-committed messages, the broker lock state and the drop flag.
 */
import type { Clock } from '../../common/clock.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { OffsetTreeMap } from './offset-tree-map.js';

/** Upstream's system properties of ProcessQueue, as settings. */
export interface ProcessQueueSettings {
  /** A broker lock not renewed for this long counts as lost (`rocketmq.client.rebalance.lockMaxLiveTime`), ms [30000]. */
  readonly lockMaxLiveTime: number;
  /** A queue not pulled for this long is rebuilt by rebalance (`rocketmq.client.pull.pullMaxIdleTime`), ms [120000]. */
  readonly pullMaxIdleTime: number;
}

export const DEFAULT_PROCESS_QUEUE_SETTINGS: ProcessQueueSettings = Object.freeze({
  lockMaxLiveTime: 30_000,
  pullMaxIdleTime: 120_000,
});

/** The local consume lock of one queue (upstream's ReentrantLock consumeLock), for async holders. */
export class ConsumeLock {
  private held = false;
  private readonly waiters: Array<() => void> = [];

  get isHeld(): boolean {
    return this.held;
  }

  tryLock(): boolean {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Resolves true once held, or false after `timeoutMs` (`clock` times the wait). */
  lock(clock: Clock, timeoutMs: number): Promise<boolean> {
    if (this.tryLock()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const grant = () => {
        timer.cancel();
        resolve(true);
      };
      const timer = clock.setTimeout(() => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      this.waiters.push(grant);
    });
  }

  unlock(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.held = false;
  }
}

function bodyLength(msg: MessageExt): number {
  return msg.body.length;
}

export class ProcessQueue {
  readonly msgTreeMap = new OffsetTreeMap();
  /** Orderly: messages taken for the listener and not yet committed. */
  readonly consumingMsgOrderlyTreeMap = new OffsetTreeMap();
  readonly consumeLock = new ConsumeLock();
  private readonly clock: Clock;
  private readonly settings: ProcessQueueSettings;
  msgCount = 0;
  msgSize = 0;
  queueOffsetMax = 0;
  dropped = false;
  locked = false;
  /** A consume request is queued or running for this queue. */
  consuming = false;
  /** Messages the broker still holds behind the last pulled one (MAX_OFFSET - offset). */
  msgAccCnt = 0;
  tryUnlockTimes = 0;
  lastPullTimestamp: number;
  lastConsumeTimestamp: number;
  lastLockTimestamp: number;

  constructor(clock: Clock, settings: ProcessQueueSettings = DEFAULT_PROCESS_QUEUE_SETTINGS) {
    this.clock = clock;
    this.settings = settings;
    const now = clock.now();
    this.lastPullTimestamp = now;
    this.lastConsumeTimestamp = now;
    this.lastLockTimestamp = now;
  }

  isLockExpired(): boolean {
    return this.clock.now() - this.lastLockTimestamp > this.settings.lockMaxLiveTime;
  }

  isPullExpired(): boolean {
    return this.clock.now() - this.lastPullTimestamp > this.settings.pullMaxIdleTime;
  }

  /**
   * Adds pulled messages; true when a consume request must be dispatched (there was none running).
   * Messages at offsets already held are not counted twice.
   */
  putMessage(msgs: readonly MessageExt[]): boolean {
    let valid = 0;
    for (const msg of msgs) {
      const offset = Number(msg.queueOffset);
      if (this.msgTreeMap.put(offset, msg) === undefined) {
        valid++;
        this.queueOffsetMax = offset;
        this.msgSize += bodyLength(msg);
      }
    }
    this.msgCount += valid;
    let dispatch = false;
    if (!this.msgTreeMap.isEmpty() && !this.consuming) {
      dispatch = true;
      this.consuming = true;
    }
    const last = msgs[msgs.length - 1];
    const maxOffset = last?.getProperty(MessageConst.PROPERTY_MAX_OFFSET);
    if (last !== undefined && maxOffset !== undefined) {
      const acc = Number(maxOffset) - Number(last.queueOffset);
      if (acc > 0) this.msgAccCnt = acc;
    }
    return dispatch;
  }

  /** Span between the first and last cached offsets. */
  getMaxSpan(): number {
    const first = this.msgTreeMap.firstKey();
    const last = this.msgTreeMap.lastKey();
    return first === undefined || last === undefined ? 0 : last - first;
  }

  /**
   * Removes consumed messages; returns the offset progress may move to: the smallest offset still
   * cached, or queueOffsetMax + 1 when none is; -1 when the queue was already empty.
   */
  removeMessage(msgs: readonly MessageExt[]): number {
    this.lastConsumeTimestamp = this.clock.now();
    if (this.msgTreeMap.isEmpty()) return -1;
    let result = this.queueOffsetMax + 1;
    let removed = 0;
    for (const msg of msgs) {
      if (this.msgTreeMap.remove(Number(msg.queueOffset)) !== undefined) {
        removed++;
        this.msgSize -= bodyLength(msg);
      }
    }
    this.msgCount -= removed;
    if (this.msgCount === 0) this.msgSize = 0;
    const first = this.msgTreeMap.firstKey();
    if (first !== undefined) result = first;
    return result;
  }

  /** Orderly: the next `batchSize` messages in offset order, moved to the consuming map. */
  takeMessages(batchSize: number): MessageExt[] {
    this.lastConsumeTimestamp = this.clock.now();
    const out: MessageExt[] = [];
    for (let i = 0; i < batchSize; i++) {
      const entry = this.msgTreeMap.pollFirst();
      if (entry === undefined) break;
      out.push(entry[1]);
      this.consumingMsgOrderlyTreeMap.put(entry[0], entry[1]);
    }
    if (out.length === 0) this.consuming = false;
    return out;
  }

  /** Orderly: the taken messages are done; returns the offset after them, or -1. */
  commit(): number {
    const last = this.consumingMsgOrderlyTreeMap.lastKey();
    this.msgCount -= this.consumingMsgOrderlyTreeMap.size;
    if (this.msgCount === 0) this.msgSize = 0;
    else for (const msg of this.consumingMsgOrderlyTreeMap.valuesInOrder()) this.msgSize -= bodyLength(msg);
    this.consumingMsgOrderlyTreeMap.clear();
    return last === undefined ? -1 : last + 1;
  }

  /** Orderly: every taken message goes back to be taken again. */
  rollback(): void {
    for (const msg of this.consumingMsgOrderlyTreeMap.valuesInOrder())
      this.msgTreeMap.put(Number(msg.queueOffset), msg);
    this.consumingMsgOrderlyTreeMap.clear();
  }

  /** Orderly: these taken messages go back, in front, to be consumed again. */
  makeMessageToConsumeAgain(msgs: readonly MessageExt[]): void {
    for (const msg of msgs) {
      const offset = Number(msg.queueOffset);
      this.consumingMsgOrderlyTreeMap.remove(offset);
      this.msgTreeMap.put(offset, msg);
    }
  }

  hasTempMessage(): boolean {
    return !this.msgTreeMap.isEmpty();
  }

  clear(): void {
    this.msgTreeMap.clear();
    this.consumingMsgOrderlyTreeMap.clear();
    this.msgCount = 0;
    this.msgSize = 0;
    this.queueOffsetMax = 0;
  }

  /** Cached messages that started consuming more than `timeoutMs` ago, oldest first (at most `max`). */
  expiredMessages(timeoutMs: number, max: number): MessageExt[] {
    const out: MessageExt[] = [];
    const now = this.clock.now();
    for (const msg of this.msgTreeMap.valuesInOrder()) {
      if (out.length >= max) break;
      const started = msg.getProperty(MessageConst.PROPERTY_CONSUME_START_TIMESTAMP);
      if (started === undefined || started === '' || now - Number(started) <= timeoutMs) break;
      out.push(msg);
    }
    return out;
  }
}
