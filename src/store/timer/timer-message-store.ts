/**
 * TimerMessageStore (upstream store/.../timer/TimerMessageStore.java, 5.5.0), our layout: the consume
 * queue of `rmq_sys_wheel_timer` (queue 0) is the timer log. Its entries' tag codes hold each
 * message's slot time (TIMER_OUT_MS, never before its store time; see timerTagsCode), so the pending
 * set is rebuilt from the queue alone. In memory a wheel of per-slot buckets holds the queue offsets
 * of the pending messages (TimerWheel). Every slot boundary the due buckets are given out: each
 * message is read from the commit log and put straight into the store under its REAL_TOPIC /
 * REAL_QID (convertTimerMessage), which wakes long-polling pulls as any arrival does.
 *
 * Crash safety: a checkpoint (TimerCheckpoint) is written every timerFlushIntervalMs and at
 * shutdown. Recovery reads the queue from its lowestPendingOffset and skips the entries it proves
 * delivered (below queueOffset, due before deliveredUpToMs). Nothing is lost: an entry counts as
 * delivered only once its re-put was stored. A message given out between the last checkpoint and a
 * crash is given out again (upstream too re-delivers what its checkpoint had not covered); so is one
 * that reached the wheel late (after its slot was read) and was due within the checkpoint window.
 */
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { type Clock, systemClock, type TimerHandle } from '../../common/clock.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { messageProperties2String } from '../../common/message/properties.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import type { ConsumeQueue } from '../consume-queue.js';
import { CQ_STORE_UNIT_SIZE, CqEntryField, cqEntryAt } from '../consume-queue-entry.js';
import type { DispatchRequest } from '../dispatch-request.js';
import type { MessageArrivingInterest, MessageArrivingListener } from '../message-store.js';
import { type AppendMessageResult, type PutMessageResult, PutMessageStatus } from '../put-message-result.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';
import {
  readTimerCheckpoint,
  type TimerCheckpoint,
  timerCheckpointPath,
  writeTimerCheckpoint,
} from './timer-checkpoint.js';
import {
  DEFAULT_TIMER_STORE_CONFIG,
  snapTimerPrecisionMs,
  TIMER_TOPIC,
  type TimerStoreConfig,
  timerTagsCode,
} from './timer-config.js';
import { convertTimerMessage } from './timer-message-convert.js';
import { type TimerBucket, TimerWheel } from './timer-wheel.js';

/** Consume-queue entries read per step of recovery and enqueueing (then the event loop gets a turn). */
const READ_BATCH = 8192;
/**
 * Tag codes below this (2001-09-09 in epoch ms) are not times: a timer-queue entry another broker
 * wrote (the official one keeps the tag hash there), whose due time is read from its message.
 */
const MIN_TIME_TAGS_CODE = 1_000_000_000_000;
/** Due messages put per step (one read burst, then their puts run together). */
const DELIVER_BATCH = 512;
/** Largest commit-log span read at once when a bucket's records lie end to end. */
const READ_SPAN_BYTES = 4 * 1024 * 1024;
/** Wait before putting again a message the store refused for now (upstream: 500 ms × precision / 1 s). */
const RETRY_DELAY_FACTOR = 0.5;
/** Put results no retry can change: logged and passed over (upstream PUT_NO_RETRY). */
const PERMANENT_FAILURES: ReadonlySet<PutMessageStatus> = new Set([
  PutMessageStatus.MESSAGE_ILLEGAL,
  PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
  PutMessageStatus.WHEEL_TIMER_NOT_ENABLE,
  PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL,
]);

/** What the timer needs of the store (DefaultMessageStore has it). */
export interface TimerMessageBackend {
  readonly config: { readonly storePathRootDir: string };
  getConsumeQueue(topic: string, queueId: number): ConsumeQueue | undefined;
  selectOneMessageByOffset(commitLogOffset: bigint, size?: number): Buffer | undefined;
  putMessage(message: MessageExtBrokerInner): Promise<PutMessageResult>;
  onMessageArrived(listener: MessageArrivingListener, interest?: MessageArrivingInterest): void;
}

export interface TimerMessageStoreOptions extends Partial<TimerStoreConfig> {
  clock?: Clock;
  logger?: Logger;
  /** Called for each message put back into its real topic (the broker counts it in its stats). */
  onDelivered?: (topic: string, result: AppendMessageResult) => void;
}

/** What the last recovery did (also logged). */
export interface TimerRecoveryStats {
  /** Queue entries read. */
  scanned: number;
  /** Of those, proven delivered by the checkpoint and skipped. */
  skipped: number;
  /** Pending after recovery. */
  pending: number;
  millis: number;
}

type Outcome = 'ok' | 'skip' | 'retry';

/** What readRecords found for one queue offset. */
type TimerRecord =
  | { missing: 'entry' }
  | { missing: 'record'; commitLogOffset: bigint; size: number }
  | { missing?: undefined; record: Buffer; commitLogOffset: bigint; size: number };

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class TimerMessageStore {
  readonly config: Readonly<TimerStoreConfig>;
  readonly precisionMs: number;
  private readonly store: TimerMessageBackend;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly onDelivered: TimerMessageStoreOptions['onDelivered'];
  private readonly wheel: TimerWheel;
  /** Next timer-queue offset to take into the wheel. */
  private enqueueOffset = 0;
  /** Next slot to give out; every slot below it was given out and its re-puts stored. */
  private readSlot = 0;
  /** The bucket being given out (still pending for the checkpoint). */
  private delivering: TimerBucket | undefined;
  private started = false;
  private loaded = false;
  private tickTimer: TimerHandle | undefined;
  private flushTimer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private enqueueing: Promise<void> | undefined;
  private enqueueAgain = false;
  private writes: Promise<void> = Promise.resolve();
  private lastWritten = '';
  private delivered = 0;
  recoveryStats: TimerRecoveryStats | undefined;

  constructor(store: TimerMessageBackend, options: TimerMessageStoreOptions = {}) {
    this.store = store;
    const { clock, logger, onDelivered, ...settings } = options;
    const config = { ...DEFAULT_TIMER_STORE_CONFIG };
    for (const [k, v] of Object.entries(settings)) {
      if (v !== undefined) (config as Record<string, unknown>)[k] = v;
    }
    config.timerPrecisionMs = snapTimerPrecisionMs(config.timerPrecisionMs);
    this.config = Object.freeze(config);
    this.precisionMs = config.timerPrecisionMs;
    this.clock = clock ?? systemClock;
    this.log = logger ?? createLogger('store.timer');
    this.onDelivered = onDelivered;
    this.wheel = new TimerWheel(this.precisionMs);
    store.onMessageArrived(this.arriving, (topic) => topic === TIMER_TOPIC);
  }

  checkpointPath(): string {
    return timerCheckpointPath(this.store.config.storePathRootDir);
  }

  /** Messages waiting in the wheel (the one being given out included). */
  get pending(): number {
    return this.wheel.size + (this.delivering?.length ?? 0);
  }

  /** Messages given out since start. */
  get deliveredCount(): number {
    return this.delivered;
  }

  /** Bytes the wheel's arrays hold (the per-slot objects come on top). */
  wheelBytes(): number {
    return this.wheel.arrayBytes();
  }

  /**
   * Upstream isReject: a slot holding more than timerCongestNumEachSlot messages refuses some sends
   * at random, one holding twice as many refuses all (WHEEL_TIMER_FLOW_CONTROL).
   */
  isReject(deliverTimeMs: number): boolean {
    const limit = this.config.timerCongestNumEachSlot;
    const congest = this.wheel.countAt(this.wheel.slotOf(deliverTimeMs));
    if (congest <= limit) return false;
    if (congest >= limit * 2) return true;
    return Math.floor(Math.random() * 1000) > (1000 * (congest - limit)) / (limit + 0.1);
  }

  // ---------------------------------------------------------------- life cycle

  /**
   * Reads the checkpoint and rebuilds the wheel from the timer queue (call after the store loaded and
   * recovered its consume queues). Rejects when the checkpoint file exists but cannot be read.
   */
  async load(): Promise<void> {
    const started = performance.now();
    const file = this.checkpointPath();
    let checkpoint: TimerCheckpoint | undefined;
    try {
      checkpoint = await readTimerCheckpoint(file);
    } catch (err) {
      // The rename keeps the file whole; a damaged one falls back to the copy kept before the last write.
      this.log.error('timer checkpoint unreadable, trying its backup', { file, error: describe(err) });
      checkpoint = await readTimerCheckpoint(`${file}.bak`);
    }
    this.wheel.clear();
    const now = this.clock.now();
    this.readSlot =
      checkpoint === undefined ? this.wheel.slotOf(now) : this.wheel.slotOf(checkpoint.deliveredUpToMs);
    const cq = this.store.getConsumeQueue(TIMER_TOPIC, 0);
    let scanned = 0;
    let skipped = 0;
    if (cq !== undefined) {
      const min = Number(cq.getMinOffsetInQueue());
      const max = Number(cq.getMaxOffsetInQueue());
      let offset = Math.max(min, checkpoint?.lowestPendingOffset ?? min);
      const provenBelow = checkpoint?.queueOffset ?? 0;
      const deliveredUpTo = checkpoint?.deliveredUpToMs ?? 0;
      if (checkpoint !== undefined && checkpoint.queueOffset > max) {
        this.log.warn('timer checkpoint is ahead of the timer queue', {
          queueOffset: checkpoint.queueOffset,
          max,
        });
      }
      while (offset < max) {
        const buf = cq.getIndexBuffer(BigInt(offset), READ_BATCH);
        const count = buf === undefined ? 0 : buf.length / CQ_STORE_UNIT_SIZE;
        if (buf === undefined || count === 0) break;
        for (let i = 0; i < count; i++) {
          const at = i * CQ_STORE_UNIT_SIZE;
          if (buf.readInt32BE(at + CqEntryField.SIZE) <= 0) continue;
          const tagsCode = this.dueTimeOf(buf, at);
          const queueOffset = offset + i;
          scanned++;
          if (queueOffset < provenBelow && tagsCode < deliveredUpTo) {
            skipped++;
            continue;
          }
          this.wheel.add(queueOffset, tagsCode, this.readSlot);
        }
        offset += count;
        await yieldTurn();
      }
      this.enqueueOffset = offset;
    }
    this.loaded = true;
    this.recoveryStats = {
      scanned,
      skipped,
      pending: this.wheel.size,
      millis: Math.round(performance.now() - started),
    };
    this.log.info('timer recovered', { ...this.recoveryStats, checkpoint: checkpoint !== undefined });
  }

  /** Starts taking in and giving out (on a master; a slave only keeps the data). */
  start(): void {
    if (this.started) return;
    if (!this.loaded) throw new Error('TimerMessageStore.start before load');
    this.started = true;
    this.scheduleTick();
    this.flushTimer = this.clock.setTimeout(this.periodicFlush, this.config.timerFlushIntervalMs);
    this.requestEnqueue();
  }

  /** Stops, waits for the puts under way and writes the checkpoint. Does nothing unless started. */
  async shutdown(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.tickTimer?.cancel();
    this.tickTimer = undefined;
    this.flushTimer?.cancel();
    this.flushTimer = undefined;
    await this.enqueueing;
    await this.running;
    await this.persist();
  }

  // ---------------------------------------------------------------- checkpoint

  /** What recovery may rely on right now (see the file comment of timer-checkpoint.ts). */
  checkpoint(): TimerCheckpoint {
    let lowest = Math.min(
      this.wheel.lowestOffset(),
      this.delivering?.firstOffset ?? Number.POSITIVE_INFINITY,
    );
    if (lowest > this.enqueueOffset) lowest = this.enqueueOffset;
    let upTo = this.readSlot * this.precisionMs;
    // Entries that came in late sit in the read slot with a due time before it: not yet delivered.
    const current = this.wheel.peek(this.readSlot);
    if (current !== undefined) upTo = Math.min(upTo, current.minTagsCode);
    if (this.delivering !== undefined) upTo = Math.min(upTo, this.delivering.minTagsCode);
    return {
      queueOffset: this.enqueueOffset,
      deliveredUpToMs: Math.max(0, upTo),
      lowestPendingOffset: lowest,
    };
  }

  /** Writes the checkpoint (after any write under way) unless unchanged; never rejects. */
  persist(): Promise<void> {
    const write = this.writes.then(() => this.writeNow());
    this.writes = write;
    return write;
  }

  private async writeNow(): Promise<void> {
    const c = this.checkpoint();
    const key = `${c.queueOffset}/${c.deliveredUpToMs}/${c.lowestPendingOffset}`;
    if (key === this.lastWritten) return;
    const file = this.checkpointPath();
    try {
      await writeTimerCheckpoint(file, c);
      this.lastWritten = key;
    } catch (err) {
      this.log.error('writing the timer checkpoint failed', { file, error: describe(err) });
    }
  }

  private readonly periodicFlush = (): void => {
    this.flushTimer = undefined;
    if (!this.started) return;
    void this.persist().finally(() => {
      if (this.started && this.flushTimer === undefined) {
        this.flushTimer = this.clock.setTimeout(this.periodicFlush, this.config.timerFlushIntervalMs);
      }
    });
  };

  // ---------------------------------------------------------------- taking in

  private readonly arriving = (request: DispatchRequest): void => {
    if (request.topic === TIMER_TOPIC) this.requestEnqueue();
  };

  /** Reads the timer queue from enqueueOffset into the wheel (one reader at a time). */
  private requestEnqueue(): void {
    if (!this.started) return;
    if (this.enqueueing !== undefined) {
      this.enqueueAgain = true;
      return;
    }
    this.enqueueing = this.enqueueAvailable().finally(() => {
      this.enqueueing = undefined;
      if (this.enqueueAgain) {
        this.enqueueAgain = false;
        this.requestEnqueue();
      }
    });
  }

  private async enqueueAvailable(): Promise<void> {
    // Let the rest of the turn's arrivals land first: one read then takes them all.
    await yieldTurn();
    const cq = this.store.getConsumeQueue(TIMER_TOPIC, 0);
    if (cq === undefined) return;
    const min = Number(cq.getMinOffsetInQueue());
    if (this.enqueueOffset < min) {
      this.log.warn('timer queue offset below the queue, moved up', { from: this.enqueueOffset, to: min });
      this.enqueueOffset = min;
    }
    while (this.started && this.enqueueOffset < Number(cq.getMaxOffsetInQueue())) {
      const buf = cq.getIndexBuffer(BigInt(this.enqueueOffset), READ_BATCH);
      const count = buf === undefined ? 0 : buf.length / CQ_STORE_UNIT_SIZE;
      if (buf === undefined || count === 0) return;
      for (let i = 0; i < count; i++) {
        const at = i * CQ_STORE_UNIT_SIZE;
        if (buf.readInt32BE(at + CqEntryField.SIZE) <= 0) continue;
        this.wheel.add(this.enqueueOffset + i, this.dueTimeOf(buf, at), this.readSlot);
      }
      this.enqueueOffset += count;
      if (count === READ_BATCH) await yieldTurn();
    }
  }

  /**
   * The due time of the consume-queue entry at `at` of `buf`: its tag code, or, when that is not a
   * time (an entry the official broker wrote), the TIMER_OUT_MS of its message (now when unreadable).
   */
  private dueTimeOf(buf: Buffer, at: number): number {
    const tagsCode = Number(buf.readBigInt64BE(at + CqEntryField.TAGS_CODE));
    if (tagsCode >= MIN_TIME_TAGS_CODE) return tagsCode;
    const record = this.store.selectOneMessageByOffset(
      buf.readBigInt64BE(at + CqEntryField.COMMIT_LOG_OFFSET),
      buf.readInt32BE(at + CqEntryField.SIZE),
    );
    if (record === undefined) return this.clock.now();
    try {
      const ext = decodeMessage(record, 0, { decompress: false });
      return Number(timerTagsCode(messageProperties2String(ext.properties), Number(ext.storeTimestamp)));
    } catch {
      return this.clock.now();
    }
  }

  // ---------------------------------------------------------------- giving out

  /** Wakes at the end of the read slot, when it falls due. */
  private scheduleTick(): void {
    if (!this.started) return;
    this.tickTimer?.cancel();
    const at = (this.readSlot + 1) * this.precisionMs;
    this.tickTimer = this.clock.setTimeout(this.tick, Math.max(0, at - this.clock.now()));
  }

  private readonly tick = (): void => {
    this.tickTimer = undefined;
    if (!this.started || this.running !== undefined) return;
    this.running = this.drive().finally(() => {
      this.running = undefined;
      this.scheduleTick();
    });
  };

  private async drive(): Promise<void> {
    if (this.config.timerStopDequeue) return;
    let idleSlots = 0;
    while (this.started && (this.readSlot + 1) * this.precisionMs <= this.clock.now()) {
      if (this.wheel.size === 0) {
        // Nothing pending: the read slot catches up with the clock at once.
        this.readSlot = Math.max(this.readSlot, this.wheel.slotOf(this.clock.now()));
        return;
      }
      let bucket = this.wheel.take(this.readSlot);
      if (bucket === undefined) {
        if (++idleSlots % 65_536 === 0) await yieldTurn();
      }
      while (bucket !== undefined) {
        this.delivering = bucket;
        const done = await this.deliverBucket(bucket);
        this.delivering = undefined;
        if (!done) {
          // Stopped mid-bucket: put it back whole; recovery gives its remainder (and the rest) out.
          this.restore(bucket);
          return;
        }
        // Late arrivals joined this slot while it was given out.
        bucket = this.wheel.take(this.readSlot);
      }
      this.readSlot++;
    }
  }

  private restore(bucket: TimerBucket): void {
    for (let i = 0; i < bucket.length; i++)
      this.wheel.add(bucket.offsets[i]!, bucket.minTagsCode, this.readSlot);
  }

  /** Gives every message of the bucket out; false when stopped before the end. */
  private async deliverBucket(bucket: TimerBucket): Promise<boolean> {
    const cq = this.store.getConsumeQueue(TIMER_TOPIC, 0);
    if (cq === undefined) return true;
    for (let start = 0; start < bucket.length; start += DELIVER_BATCH) {
      const end = Math.min(bucket.length, start + DELIVER_BATCH);
      let todo: number[] = [];
      for (let i = start; i < end; i++) todo.push(bucket.offsets[i]!);
      for (;;) {
        const now = this.clock.now();
        const records = this.readRecords(cq, todo);
        const outcomes = await Promise.all(todo.map((offset, i) => this.deliverOne(offset, records[i], now)));
        todo = todo.filter((_, i) => outcomes[i] === 'retry');
        if (todo.length === 0) break;
        if (!this.started) return false;
        await new Promise<void>((resolve) => {
          this.clock.setTimeout(resolve, Math.max(10, this.precisionMs * RETRY_DELAY_FACTOR));
        });
        if (!this.started) return false;
      }
    }
    return true;
  }

  /**
   * The consume-queue entries and commit-log records of `offsets` (ascending), read a run at a time:
   * one read for consecutive queue offsets, one for records lying end to end in the commit log (the
   * usual case: a slot's messages were mostly sent together). A read per message was a third of the
   * dequeue's time (npm run bench:compare, timer scenario, node --cpu-prof).
   */
  private readRecords(cq: ConsumeQueue, offsets: readonly number[]): Array<TimerRecord | undefined> {
    const entries: Array<{ commitLogOffset: bigint; size: number } | undefined> = new Array(offsets.length);
    for (let i = 0; i < offsets.length; ) {
      let run = 1;
      while (i + run < offsets.length && offsets[i + run] === offsets[i]! + run) run++;
      const buf = cq.getIndexBuffer(BigInt(offsets[i]!), run);
      const got = buf === undefined ? 0 : buf.length / CQ_STORE_UNIT_SIZE;
      for (let k = 0; k < got; k++) entries[i + k] = cqEntryAt(buf!, k);
      // A run crossing a queue file's end: the rest is read from the next one on the next pass.
      i += Math.max(1, got);
    }
    const records: Array<TimerRecord | undefined> = new Array(offsets.length);
    for (let i = 0; i < offsets.length; ) {
      const first = entries[i];
      if (first === undefined || first.size <= 0) {
        records[i] = first === undefined ? { missing: 'entry' } : { missing: 'record', ...first };
        i++;
        continue;
      }
      let run = 1;
      let bytes = first.size;
      for (;;) {
        const next = entries[i + run];
        if (next === undefined || next.size <= 0 || bytes + next.size > READ_SPAN_BYTES) break;
        if (next.commitLogOffset !== first.commitLogOffset + BigInt(bytes)) break;
        bytes += next.size;
        run++;
      }
      const span = run > 1 ? this.store.selectOneMessageByOffset(first.commitLogOffset, bytes) : undefined;
      let at = 0;
      for (let k = 0; k < run; k++) {
        const e = entries[i + k]!;
        // A span the commit log cannot give whole (across a file's end) falls back to one read each.
        const record =
          span !== undefined && span.length === bytes
            ? span.subarray(at, at + e.size)
            : this.store.selectOneMessageByOffset(e.commitLogOffset, e.size);
        at += e.size;
        records[i + k] = record === undefined ? { missing: 'record', ...e } : { record, ...e };
      }
      i += run;
    }
    return records;
  }

  private deliverOne(offset: number, read: TimerRecord | undefined, now: number): Promise<Outcome> {
    if (read === undefined || read.missing === 'entry') {
      this.log.warn('timer queue entry gone (expired), passed over', { offset });
      return Promise.resolve('skip');
    }
    const where = { offset, commitLogOffset: read.commitLogOffset, size: read.size };
    const record = read.missing === undefined ? read.record : undefined;
    if (record === undefined) {
      this.log.warn('timer message not found in the commit log, passed over', where);
      return Promise.resolve('skip');
    }
    let inner: MessageExtBrokerInner;
    try {
      inner = convertTimerMessage(record, now, this.precisionMs);
    } catch (err) {
      this.log.error('timer message cannot be delivered, passed over', { ...where, error: describe(err) });
      return Promise.resolve('skip');
    }
    let put: Promise<PutMessageResult>;
    try {
      put = this.store.putMessage(inner);
    } catch (err) {
      put = Promise.reject(err);
    }
    return put.then(
      (result): Outcome => {
        const status = result.putMessageStatus;
        if (status === PutMessageStatus.PUT_OK) {
          this.delivered++;
          if (this.onDelivered !== undefined && result.appendMessageResult !== undefined) {
            try {
              this.onDelivered(inner.topic, result.appendMessageResult);
            } catch (err) {
              this.log.warn('onDelivered failed', { error: describe(err) });
            }
          }
          return 'ok';
        }
        if (PERMANENT_FAILURES.has(status)) {
          this.log.error('timer message refused by the store, passed over', {
            ...where,
            topic: inner.topic,
            status,
          });
          return 'skip';
        }
        this.log.warn('giving out a timer message failed, will retry', { ...where, status });
        return 'retry';
      },
      (err: unknown): Outcome => {
        this.log.warn('giving out a timer message failed, will retry', { ...where, error: describe(err) });
        return 'retry';
      },
    );
  }
}
