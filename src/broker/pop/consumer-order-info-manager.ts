/**
 * ConsumerOrderInfoManager (upstream `broker/offset/ConsumerOrderInfoManager`, in 5.5.0
 * `broker/pop/orderly/QueueLevelConsumerManager`): FIFO POP state per `topic@group` and queue -- what
 * the last pop handed out, which of it is acked, when each message becomes visible again, how often
 * each was handed out -- so that a FIFO queue is blocked until its popped messages are acked or
 * invisible no more, and a pop repeated with the same attemptId gets the same messages.
 * Kept in `<storePathRootDir>/config/consumerOrderInfo.json` in 5.5.0's format and persisted with the
 * consumer offsets. Callers:
 * - POP_MESSAGE (order=true): `checkBlock` before reading a queue, `update` after reading it;
 * - ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME on a FIFO handle (reviveQid 999): `commitAndNext`
 *   (then commit the returned offset as the group's consumer offset when >= 0) and
 *   `updateNextVisibleTime`.
 * Whenever a queue's block changes, `onLockFree` is called at the time it becomes free (upstream's
 * ConsumerOrderInfoLockManager, `enableNotifyAfterPopOrderLockRelease`), which wakes parked FIFO pops.
 */

import { join } from 'node:path';
import type { Clock, TimerHandle } from '../../common/clock.js';
import { systemClock } from '../../common/clock.js';
import { RemotingCommandError } from '../../common/errors.js';
import {
  type FastjsonRecord,
  type FastjsonValue,
  type FjEmittableRecord,
  FjMap,
  JAVA_LONG_KEY,
  javaHashMapIterationOrder,
  parseFastjson,
  stringifyFastjson,
} from '../../common/fastjson/index.js';
import type { Logger } from '../../common/logger.js';
import { queueIdOrderCountItem, queueOffsetOrderCountItem } from '../../common/pop/extra-info.js';
import { FastjsonFieldReader } from '../../common/pop/json-fields.js';
import { type ConfigFileIO, ConfigManager } from '../config-manager.js';
import {
  lockFreeTimestamp,
  mergeOffsetConsumedCount,
  needBlock,
  newOrderInfo,
  nextOffset,
  type OrderInfo,
  queueOffsetAt,
} from './order-info.js';

const TOPIC_GROUP_SEPARATOR = '@';
/** Upstream CLEAN_SPAN_FROM_LAST: a queue not popped for a day loses its order info on persist. */
export const CLEAN_SPAN_FROM_LAST_MS = 24 * 3600 * 1000;

/** `<storePathRootDir>/config/consumerOrderInfo.json` (BrokerPathConfigHelper.getConsumerOrderInfoPath). */
export function consumerOrderInfoPath(rootDir: string): string {
  return join(rootDir, 'config', 'consumerOrderInfo.json');
}

/** commitAndNext: the offset is not part of the queue's last FIFO pop. */
export const COMMIT_ILLEGAL = -1n;
/** commitAndNext: the handle is from an older pop of the queue (popTime differs); nothing to commit. */
export const COMMIT_NOT_NEEDED = -2n;

export interface ConsumerOrderInfoManagerOptions {
  storePathRootDir: string;
  logger: Logger;
  io?: ConfigFileIO;
  clock?: Clock;
  /** For autoClean: the topic's read queue count, undefined when the topic is gone. */
  topicReadQueueNums?: (topic: string) => number | undefined;
  /** For autoClean: whether the subscription group still exists. */
  groupExists?: (group: string) => boolean;
  /** Called when a FIFO queue's block is lifted (upstream enableNotifyAfterPopOrderLockRelease). */
  onLockFree?: (topic: string, group: string, queueId: number) => void;
}

export class ConsumerOrderInfoManager extends ConfigManager {
  private readonly rootDir: string;
  private readonly clock: Clock;
  private readonly options: ConsumerOrderInfoManagerOptions;
  /** `topic@group` -> queueId -> OrderInfo. */
  private table = new Map<string, Map<number, OrderInfo>>();
  private readonly lockFreeTimers = new Map<string, { at: number; handle: TimerHandle }>();

  constructor(options: ConsumerOrderInfoManagerOptions) {
    super(options.logger, options.io);
    this.rootDir = options.storePathRootDir;
    this.clock = options.clock ?? systemClock;
    this.options = options;
  }

  configFilePath(): string {
    return consumerOrderInfoPath(this.rootDir);
  }

  /** Read-only view for stats and tests. */
  get orderInfoTable(): ReadonlyMap<string, ReadonlyMap<number, Readonly<OrderInfo>>> {
    return this.table;
  }

  private queues(topic: string, group: string, create: boolean): Map<number, OrderInfo> | undefined {
    const key = topic + TOPIC_GROUP_SEPARATOR + group;
    let qs = this.table.get(key);
    if (qs === undefined && create) {
      qs = new Map();
      this.table.set(key, qs);
    }
    return qs;
  }

  /**
   * Records a FIFO pop of a queue (upstream `update`) and appends its orderCountInfo items: one per
   * message handed out before (`<retry> qo<queueId>%<offset> <count>`), then the queue's minimum
   * (`<retry> <queueId> <min>`, for old clients). `isRetry` is upstream's (unused there too).
   */
  update(
    attemptId: string | undefined,
    _isRetry: boolean,
    topic: string,
    group: string,
    queueId: number,
    popTime: bigint,
    invisibleTime: bigint,
    msgQueueOffsetList: readonly bigint[],
    orderCountInfo: string[],
  ): void {
    const qs = this.queues(topic, group, true) as Map<number, OrderInfo>;
    const old = qs.get(queueId);
    const info = newOrderInfo(attemptId, popTime, invisibleTime, msgQueueOffsetList, this.clock.now());
    if (old !== undefined)
      mergeOffsetConsumedCount(info, old.attemptId, old.offsetList, old.offsetConsumedCount);
    qs.set(queueId, info);

    let minConsumedTimes = Number.MAX_SAFE_INTEGER;
    const counts = info.offsetConsumedCount;
    if (counts !== undefined) {
      // Java iterates a HashMap<Long, Integer>; kept in that order so the header reads the same.
      for (const offset of javaHashMapIterationOrder([...counts.keys()], JAVA_LONG_KEY)) {
        const times = counts.get(offset) ?? 0;
        orderCountInfo.push(queueOffsetOrderCountItem(topic, queueId, offset, times));
        minConsumedTimes = Math.min(minConsumedTimes, times);
      }
      // Counts only hold messages handed out before: a size difference means new messages.
      if (counts.size !== info.offsetList.length) minConsumedTimes = 0;
    } else {
      minConsumedTimes = 0;
    }
    orderCountInfo.push(queueIdOrderCountItem(topic, queueId, minConsumedTimes));
    this.updateLockFreeTimestamp(topic, group, queueId, info);
  }

  /** Whether the queue is blocked for this pop (upstream `checkBlock`). */
  checkBlock(
    attemptId: string | undefined,
    topic: string,
    group: string,
    queueId: number,
    invisibleTime: bigint,
  ): boolean {
    const info = this.queues(topic, group, false)?.get(queueId);
    if (info === undefined) return false;
    return needBlock(info, attemptId, invisibleTime, this.clock.now());
  }

  /** Forgets the queue's FIFO state (upstream `clearBlock`, used when offsets are reset). */
  clearBlock(topic: string, group: string, queueId: number): void {
    this.queues(topic, group, false)?.delete(queueId);
    this.cancelLockFreeTimer(topic, group, queueId);
  }

  /** Forgets every queue of topic@group (5.5.0 `remove`). */
  remove(topic: string, group: string): void {
    const qs = this.table.get(topic + TOPIC_GROUP_SEPARATOR + group);
    if (qs === undefined) return;
    for (const queueId of qs.keys()) this.cancelLockFreeTimer(topic, group, queueId);
    this.table.delete(topic + TOPIC_GROUP_SEPARATOR + group);
  }

  /**
   * Marks a popped FIFO message acked (upstream `commitAndNext`) and returns the consumer offset to
   * commit: the first offset of the pop not yet acked, or one past the last once all are.
   * Returns queueOffset + 1 when the queue has no FIFO state, COMMIT_ILLEGAL (-1) when the offset is
   * not part of the last pop, COMMIT_NOT_NEEDED (-2) when `popTime` is not the last pop's.
   */
  commitAndNext(topic: string, group: string, queueId: number, queueOffset: bigint, popTime: bigint): bigint {
    const qs = this.queues(topic, group, false);
    if (qs === undefined) return queueOffset + 1n;
    const info = qs.get(queueId);
    if (info === undefined) {
      this.logger.warn('OrderInfo is null', { topic, group, queueId, queueOffset });
      return queueOffset + 1n;
    }
    if (info.offsetList.length === 0) {
      this.logger.warn('OrderInfo is empty', { topic, group, queueId, queueOffset });
      return COMMIT_ILLEGAL;
    }
    if (popTime !== info.popTime) {
      this.logger.warn('popTime is not equal to orderInfo saved', {
        topic,
        group,
        queueId,
        queueOffset,
        popTime,
      });
      return COMMIT_NOT_NEEDED;
    }
    let i = 0;
    for (; i < info.offsetList.length; i++) if (queueOffsetAt(info.offsetList, i) === queueOffset) break;
    if (i >= info.offsetList.length) {
      this.logger.warn('OrderInfo not found commit offset', { topic, group, queueId, queueOffset });
      return COMMIT_ILLEGAL;
    }
    info.commitOffsetBit |= 1n << BigInt(i);
    const next = nextOffset(info);
    this.updateLockFreeTimestamp(topic, group, queueId, info);
    return next;
  }

  /**
   * Sets when a popped FIFO message becomes visible again (upstream `updateNextVisibleTime`, from
   * CHANGE_MESSAGE_INVISIBLETIME). Ignored when the queue has no state or `popTime` is not the last pop's.
   */
  updateNextVisibleTime(
    topic: string,
    group: string,
    queueId: number,
    queueOffset: bigint,
    popTime: bigint,
    nextVisibleTime: bigint,
  ): void {
    const info = this.queues(topic, group, false)?.get(queueId);
    if (info === undefined) {
      this.logger.warn('orderInfo is null', { topic, group, queueId, queueOffset });
      return;
    }
    if (popTime !== info.popTime) {
      this.logger.warn('popTime is not equal to orderInfo saved', {
        topic,
        group,
        queueId,
        queueOffset,
        popTime,
      });
      return;
    }
    if (info.offsetNextVisibleTime === undefined) info.offsetNextVisibleTime = new Map();
    info.offsetNextVisibleTime.set(queueOffset, nextVisibleTime);
    this.updateLockFreeTimestamp(topic, group, queueId, info);
  }

  private timerKey(topic: string, group: string, queueId: number): string {
    return `${topic}${TOPIC_GROUP_SEPARATOR}${group}${TOPIC_GROUP_SEPARATOR}${queueId}`;
  }

  private cancelLockFreeTimer(topic: string, group: string, queueId: number): void {
    const key = this.timerKey(topic, group, queueId);
    this.lockFreeTimers.get(key)?.handle.cancel();
    this.lockFreeTimers.delete(key);
  }

  /** ConsumerOrderInfoLockManager.updateLockFreeTimestamp: notify now, or when the block ends. */
  private updateLockFreeTimestamp(topic: string, group: string, queueId: number, info: OrderInfo): void {
    const notify = this.options.onLockFree;
    if (notify === undefined) return;
    const now = this.clock.now();
    const at = lockFreeTimestamp(info, now);
    this.cancelLockFreeTimer(topic, group, queueId);
    if (at === undefined) return;
    if (at <= now) {
      notify(topic, group, queueId);
      return;
    }
    const key = this.timerKey(topic, group, queueId);
    const handle = this.clock.setTimeout(() => {
      this.lockFreeTimers.delete(key);
      notify(topic, group, queueId);
    }, at - now);
    this.lockFreeTimers.set(key, { at, handle });
  }

  /**
   * Upstream autoClean (run before each persist): drops state of topics and groups that are gone,
   * of queues beyond the topic's read queue count, and of queues not popped for a day.
   */
  autoClean(): void {
    const readQueueNums = this.options.topicReadQueueNums;
    const groupExists = this.options.groupExists;
    if (readQueueNums === undefined || groupExists === undefined) return;
    const now = this.clock.now();
    for (const [key, qs] of [...this.table]) {
      const parts = key.split(TOPIC_GROUP_SEPARATOR);
      if (parts.length !== 2) continue;
      const [topic, group] = parts as [string, string];
      const readNums = readQueueNums(topic);
      const drop = (why: string) => {
        this.remove(topic, group);
        this.logger.info(`${why}, Clean order info`, { key });
      };
      if (readNums === undefined) drop('Topic not exist');
      else if (!groupExists(group)) drop('Group not exist');
      else if (qs.size === 0) drop('Order table is empty');
      else {
        for (const [queueId, info] of [...qs]) {
          if (queueId >= readNums || now - info.lastConsumeTimestamp > CLEAN_SPAN_FROM_LAST_MS) {
            qs.delete(queueId);
            this.cancelLockFreeTimer(topic, group, queueId);
            this.logger.info('Clean order info of a queue', { key, queueId });
          }
        }
      }
    }
  }

  /** 5.5.0's file: `{"orderInfoCount":N,"orderedConsumptionLevel":"QUEUE","table":{"t@g":{0:{..}}}}`. */
  encode(pretty = false): string {
    this.autoClean();
    let count = 0;
    const table = new FjMap<string, FjMap<number, FjEmittableRecord>>();
    for (const [key, qs] of this.table) {
      const queues = new FjMap<number, FjEmittableRecord>();
      for (const [queueId, info] of qs) {
        queues.entries.push([queueId, encodeOrderInfo(info)]);
        count++;
      }
      table.entries.push([key, queues]);
    }
    return stringifyFastjson({ orderInfoCount: count, orderedConsumptionLevel: 'QUEUE', table }, { pretty });
  }

  protected decode(json: string, file: string): void {
    const root = new FastjsonFieldReader(file, parseFastjson(json, { what: file }));
    const table = new Map<string, Map<number, OrderInfo>>();
    const raw = root.raw('table');
    for (const [key, queuesValue] of Object.entries(asRecord(file, 'table', raw))) {
      const qs = new Map<number, OrderInfo>();
      for (const [queueIdText, infoValue] of Object.entries(asRecord(file, key, queuesValue))) {
        const queueId = Number(queueIdText);
        if (!Number.isInteger(queueId) || String(queueId) !== queueIdText) {
          root.fail(`table.${key}`, `queue id ${JSON.stringify(queueIdText)} is not an int`);
        }
        qs.set(queueId, decodeOrderInfo(`${file} ${key}:${queueId}`, infoValue));
      }
      table.set(key, qs);
    }
    this.table = table;
  }

  /** Cancels the lock-free timers (broker shutdown). */
  shutdown(): void {
    for (const t of this.lockFreeTimers.values()) t.handle.cancel();
    this.lockFreeTimers.clear();
  }
}

function asRecord(file: string, key: string, v: FastjsonValue | undefined): FastjsonRecord {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || v instanceof FjMap) {
    throw new RemotingCommandError(file, `${key}: not an object`);
  }
  return v;
}

function longMap<V>(m: ReadonlyMap<bigint, V> | undefined): FjMap<bigint, V> | undefined {
  if (m === undefined) return undefined;
  const order = javaHashMapIterationOrder([...m.keys()], JAVA_LONG_KEY);
  return new FjMap(order.map((k) => [k, m.get(k) as V] as [bigint, V]));
}

function encodeOrderInfo(info: OrderInfo): FjEmittableRecord {
  return {
    a: info.attemptId,
    cm: info.commitOffsetBit,
    i: info.invisibleTime,
    l: info.lastConsumeTimestamp,
    o: info.offsetList,
    oc: longMap(info.offsetConsumedCount),
    ot: longMap(info.offsetNextVisibleTime),
    popTime: info.popTime,
  };
}

function decodeLongKeyMap<V>(
  what: string,
  v: FastjsonValue | undefined,
  value: (x: FastjsonValue) => V | undefined,
): Map<bigint, V> | undefined {
  if (v === undefined || v === null) return undefined;
  const out = new Map<bigint, V>();
  for (const [k, x] of Object.entries(asRecord(what, 'map', v))) {
    const parsed = value(x);
    if (!/^-?\d{1,19}$/.test(k) || parsed === undefined)
      throw new RemotingCommandError(what, `${k}: bad entry`);
    out.set(BigInt(k), parsed);
  }
  return out;
}

function decodeOrderInfo(what: string, v: FastjsonValue): OrderInfo {
  const r = new FastjsonFieldReader(what, v);
  const invisible = r.raw('i', 'invisibleTime');
  return {
    popTime: r.long('popTime'),
    invisibleTime: invisible === undefined ? undefined : r.long('i', 'invisibleTime'),
    offsetList: r.longList('o', 'offsetList') ?? [],
    offsetNextVisibleTime: decodeLongKeyMap(what, r.raw('ot', 'offsetNextVisibleTime'), (x) =>
      typeof x === 'bigint' ? x : typeof x === 'number' && Number.isSafeInteger(x) ? BigInt(x) : undefined,
    ),
    offsetConsumedCount: decodeLongKeyMap(what, r.raw('oc', 'offsetConsumedCount'), (x) =>
      typeof x === 'number' && Number.isInteger(x) ? x : undefined,
    ),
    lastConsumeTimestamp: Number(r.long('l', 'lastConsumeTimestamp')),
    commitOffsetBit: r.long('cm', 'commitOffsetBit'),
    attemptId: r.string('a', 'attemptId'),
  };
}
