/**
 * ScheduleMessageService (upstream store/.../schedule/ScheduleMessageService.java, 4.9.8, with its
 * default synchronous delivery; enableScheduleAsyncDeliver is off there). Delayed messages wait in
 * SCHEDULE_TOPIC_XXXX, queue = level - 1, each consume-queue entry's tag code being the delivery
 * time (the commit log writes them so); when an entry is due its message is put back into its real
 * topic and queue, and the level's offset moves past it. Offsets persist to
 * `<storePathRootDir>/config/delayOffset.json` every flushDelayOffsetInterval and at shutdown.
 *
 * Upstream polls every level every 100 ms. Here a level sleeps until its next entry is due, or until
 * a message arrives in its queue (the store's arriving listener) when it has none, with upstream's
 * DELAY_FOR_A_PERIOD as a fallback poll; a failed put is retried after DELAY_FOR_A_WHILE and the
 * offset never passes a message that was not put. The due messages of a level are put together (one
 * commit-log write) and the offset advances over the leading ones that were stored, so a failure in
 * the middle of a batch may put the later ones again: at-least-once, as a crash before a persist is.
 */
import { readFile } from 'node:fs/promises';
import { type Clock, systemClock, type TimerHandle } from '../../common/clock.js';
import { RocketMQError } from '../../common/errors.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { writeFileAtomic } from '../../common/platform/atomic-file.js';
import { TopicValidator } from '../../common/validators.js';
import type { ConsumeQueue } from '../consume-queue.js';
import { type ConsumeQueueEntry, CQ_STORE_UNIT_SIZE, cqEntryAt } from '../consume-queue-entry.js';
import { DelayLevelTable, delayLevel2QueueId } from '../delay-level.js';
import type { DispatchRequest } from '../dispatch-request.js';
import type { MessageArrivingInterest, MessageArrivingListener } from '../message-store.js';
import { type AppendMessageResult, type PutMessageResult, PutMessageStatus } from '../put-message-result.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';
import {
  decodeDelayOffsetTable,
  delayOffsetStorePath,
  encodeDelayOffsetTable,
} from './delay-offset-table.js';
import { messageTimeup } from './message-timeup.js';

/** Upstream's delay before each level's first check after start. */
export const FIRST_DELAY_TIME = 1000;
/** Upstream's retry delay (a failed put, a consume-queue entry not readable yet). */
export const DELAY_FOR_A_WHILE = 100;
/** Upstream's delay after an unexpected error; here also the idle poll of a level with nothing queued. */
export const DELAY_FOR_A_PERIOD = 10_000;
/** Upstream's first persist comes 10 s after start, then every flushDelayOffsetInterval. */
const FIRST_PERSIST_DELAY = 10_000;
/** Due messages of one level put in one turn (and so in one commit-log write). */
const DELIVER_BATCH = 32;
/** Put results that no retry can change: the message is logged and passed over. */
const PERMANENT_FAILURES: ReadonlySet<PutMessageStatus> = new Set([
  PutMessageStatus.MESSAGE_ILLEGAL,
  PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
]);

const SCHEDULE_TOPIC = TopicValidator.RMQ_SYS_SCHEDULE_TOPIC;

/** What the service needs of the store (DefaultMessageStore has it). */
export interface ScheduleMessageStore {
  readonly config: { readonly storePathRootDir: string };
  getConsumeQueue(topic: string, queueId: number): ConsumeQueue | undefined;
  selectOneMessageByOffset(commitLogOffset: bigint, size?: number): Buffer | undefined;
  putMessage(message: MessageExtBrokerInner): Promise<PutMessageResult>;
  getMaxOffsetInQueue(topic: string, queueId: number): bigint;
  onMessageArrived(listener: MessageArrivingListener, interest?: MessageArrivingInterest): void;
}

export interface ScheduleMessageServiceOptions {
  /** Upstream `messageDelayLevel` (broker.conf). */
  messageDelayLevel?: string;
  /** Upstream `flushDelayOffsetInterval` [10 s]: how often changed offsets are written. */
  flushDelayOffsetInterval?: number;
  clock?: Clock;
  logger?: Logger;
  /**
   * Called for each message put back into its real topic (upstream counts it in the broker's stats
   * when enableScheduleMessageStats, true by default).
   */
  onDelivered?: (delayLevel: number, topic: string, result: AppendMessageResult) => void;
}

type Outcome = 'ok' | 'skip' | 'retry';

/** One level's delivery state (upstream's chain of DeliverDelayedMessageTimerTask). */
class DelayLevel {
  readonly queueId: number;
  /** Next consume-queue offset to deliver. */
  offset = 0n;
  timer: TimerHandle | undefined;
  /** When `timer` fires; infinite when none is set. */
  wakeAt = Number.POSITIVE_INFINITY;
  running: Promise<void> | undefined;
  /** A message arrived while a delivery ran: look again before sleeping. */
  wakeRequested = false;

  constructor(
    readonly level: number,
    readonly delay: number,
  ) {
    this.queueId = delayLevel2QueueId(level);
  }
}

function immediate(fn: () => void): TimerHandle {
  const handle = setImmediate(fn);
  return { cancel: () => clearImmediate(handle) };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

export class ScheduleMessageService {
  readonly delayLevelTable: DelayLevelTable;
  private readonly store: ScheduleMessageStore;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly flushDelayOffsetInterval: number;
  private readonly onDelivered: ScheduleMessageServiceOptions['onDelivered'];
  /** Index = level - 1. */
  private readonly levels: DelayLevel[] = [];
  /** Upstream offsetTable: level -> next offset; only levels delivered from, or read from the file. */
  private readonly offsetTable = new Map<number, bigint>();
  private started = false;
  private dirty = false;
  private persistTimer: TimerHandle | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(store: ScheduleMessageStore, options: ScheduleMessageServiceOptions = {}) {
    this.store = store;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? createLogger('store.schedule');
    this.flushDelayOffsetInterval = options.flushDelayOffsetInterval ?? 10_000;
    this.onDelivered = options.onDelivered;
    this.delayLevelTable = new DelayLevelTable(options.messageDelayLevel);
    for (let level = 1; level <= this.delayLevelTable.maxDelayLevel; level++) {
      // A known level's deliver time from store time 0 is its delay.
      this.levels.push(new DelayLevel(level, this.delayLevelTable.computeDeliverTimestamp(level, 0)));
    }
    store.onMessageArrived(this.arriving, (topic) => topic === SCHEDULE_TOPIC);
  }

  static queueId2DelayLevel(queueId: number): number {
    return queueId + 1;
  }

  static delayLevel2QueueId(delayLevel: number): number {
    return delayLevel2QueueId(delayLevel);
  }

  get maxDelayLevel(): number {
    return this.delayLevelTable.maxDelayLevel;
  }

  computeDeliverTimestamp(delayLevel: number, storeTimestamp: number): number {
    return this.delayLevelTable.computeDeliverTimestamp(delayLevel, storeTimestamp);
  }

  isStarted(): boolean {
    return this.started;
  }

  configFilePath(): string {
    return delayOffsetStorePath(this.store.config.storePathRootDir);
  }

  /** The offset table: level -> next offset to deliver (a copy). */
  offsets(): Map<number, bigint> {
    return new Map(this.offsetTable);
  }

  // ---------------------------------------------------------------- life cycle

  /**
   * Reads delayOffset.json (its .bak when the file is empty or unreadable; nothing when neither
   * exists) into the offset table and corrects each level's offset into its queue's bounds
   * (upstream `load` + `correctDelayOffset`). Call after the store loaded its consume queues.
   * Rejects with a RocketMQError naming the file when it cannot be read and there is no backup:
   * upstream would start from offset 0 then and deliver everything still queued again.
   */
  async load(): Promise<void> {
    const table = await this.readTable(this.configFilePath());
    if (table !== undefined) for (const [level, offset] of table) this.offsetTable.set(level, offset);
    this.correctDelayOffset();
  }

  private async readTable(file: string): Promise<Map<number, bigint> | undefined> {
    let mainError: unknown;
    try {
      const text = await readText(file);
      if (text !== undefined && text.length > 0) return decodeDelayOffsetTable(text, file);
    } catch (err) {
      mainError = err;
      this.log.error('delay offsets failed to load, trying the backup', { file, error: describe(err) });
    }
    const backup = `${file}.bak`;
    try {
      const text = await readText(backup);
      if (text !== undefined && text.length > 0) {
        const table = decodeDelayOffsetTable(text, backup);
        this.log.warn('delay offsets loaded from the backup', { file: backup });
        return table;
      }
    } catch (err) {
      throw new RocketMQError(`cannot load ${file} nor ${backup}: ${describe(err)}`, 1, { cause: err });
    }
    if (mainError !== undefined) {
      throw new RocketMQError(
        `cannot load ${file} (${describe(mainError)}) and there is no backup; fix or remove the file`,
        1,
        { cause: mainError },
      );
    }
    return undefined;
  }

  /** Upstream `correctDelayOffset`: an offset outside its queue's [min, max] is moved to the nearer end. */
  correctDelayOffset(): void {
    for (const state of this.levels) {
      const current = this.offsetTable.get(state.level);
      const cq = this.store.getConsumeQueue(SCHEDULE_TOPIC, state.queueId);
      if (current === undefined || cq === undefined) continue;
      const corrected = this.clampOffset(state.level, cq, current);
      if (corrected !== current) {
        this.log.error('correct delay offset', { level: state.level, from: current, to: corrected });
        this.offsetTable.set(state.level, corrected);
      }
    }
  }

  private clampOffset(level: number, cq: ConsumeQueue, offset: bigint): bigint {
    const min = cq.getMinOffsetInQueue();
    const max = cq.getMaxOffsetInQueue();
    if (offset >= min && offset <= max) return offset;
    this.log.error('schedule CQ offset invalid', { level, offset, cqMinOffset: min, cqMaxOffset: max });
    return offset < min ? min : max;
  }

  /** Starts every level's delivery (first look after FIRST_DELAY_TIME) and the periodic persist. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const first = this.clock.now() + FIRST_DELAY_TIME;
    for (const state of this.levels) {
      state.offset = this.offsetTable.get(state.level) ?? 0n;
      this.scheduleAt(state, first);
    }
    this.persistTimer = this.clock.setTimeout(this.periodicPersist, FIRST_PERSIST_DELAY);
  }

  /** Stops delivering, waits for the puts under way and writes the offsets. Does nothing unless started. */
  async shutdown(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.persistTimer?.cancel();
    this.persistTimer = undefined;
    const running: Array<Promise<void>> = [];
    for (const state of this.levels) {
      state.timer?.cancel();
      state.timer = undefined;
      state.wakeAt = Number.POSITIVE_INFINITY;
      if (state.running !== undefined) running.push(state.running);
    }
    await Promise.all(running);
    await this.persist();
  }

  // ---------------------------------------------------------------- persistence

  /** The offset table as fastjson writes it (pretty: the file's form). */
  encode(pretty = false): string {
    return encodeDelayOffsetTable(this.offsetTable, { pretty });
  }

  /** Resolves once every write started so far has ended. */
  flushed(): Promise<void> {
    return this.writes;
  }

  /** Writes the table now (after any write under way); never rejects, a failure is logged. */
  persist(): Promise<void> {
    const write = this.writes.then(() => this.writeNow());
    this.writes = write;
    return write;
  }

  private async writeNow(): Promise<void> {
    this.dirty = false;
    const file = this.configFilePath();
    try {
      await writeFileAtomic(file, this.encode(true));
    } catch (err) {
      this.dirty = true;
      this.log.error('persisting delay offsets failed', { file, error: describe(err) });
    }
  }

  private readonly periodicPersist = (): void => {
    this.persistTimer = undefined;
    if (!this.started) return;
    if (this.dirty) void this.persist();
    this.persistTimer = this.clock.setTimeout(this.periodicPersist, this.flushDelayOffsetInterval);
  };

  /** Upstream `buildRunningStats`: `scheduleMessageOffset_<level>` = "<delayOffset>,<maxOffset>". */
  buildRunningStats(into: Map<string, string>): void {
    for (const level of [...this.offsetTable.keys()].sort((a, b) => a - b)) {
      const max = this.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, delayLevel2QueueId(level));
      into.set(`scheduleMessageOffset_${level}`, `${this.offsetTable.get(level)},${max}`);
    }
  }

  // ---------------------------------------------------------------- delivery

  /** Upstream `correctDeliverTimestamp`: a time further ahead than the level's delay means now. */
  private correctDeliverTimestamp(state: DelayLevel, now: number, deliverTimestamp: number): number {
    return deliverTimestamp > now + state.delay ? now : deliverTimestamp;
  }

  /**
   * Wakes the level at clock time `at`. Times are absolute because the clock may move on between
   * the look that chose the time and this call (a delivery's continuation runs later).
   */
  private scheduleAt(state: DelayLevel, at: number): void {
    state.timer?.cancel();
    const ms = Math.max(0, at - this.clock.now());
    state.wakeAt = at;
    const run = (): void => this.run(state);
    state.timer = ms === 0 ? immediate(run) : this.clock.setTimeout(run, ms);
  }

  /** A message stored into a level's queue wakes the level by its deliver time if it sleeps longer. */
  private readonly arriving = (request: DispatchRequest): void => {
    if (!this.started || request.topic !== SCHEDULE_TOPIC) return;
    const state = this.levels[request.queueId];
    if (state === undefined) return;
    if (state.running !== undefined) {
      state.wakeRequested = true;
      return;
    }
    const at = this.correctDeliverTimestamp(state, this.clock.now(), Number(request.tagsCode));
    if (at < state.wakeAt) this.scheduleAt(state, at);
  };

  private run(state: DelayLevel): void {
    state.timer = undefined;
    state.wakeAt = Number.POSITIVE_INFINITY;
    if (!this.started || state.running !== undefined) return;
    state.running = this.drive(state);
  }

  private async drive(state: DelayLevel): Promise<void> {
    let next = 0;
    do {
      state.wakeRequested = false;
      try {
        next = await this.deliverDue(state);
      } catch (err) {
        this.log.error('delivering delayed messages failed', { level: state.level, error: describe(err) });
        next = this.clock.now() + DELAY_FOR_A_PERIOD;
      }
    } while (state.wakeRequested && this.started);
    state.running = undefined;
    if (this.started) this.scheduleAt(state, next);
  }

  /**
   * Upstream `executeOnTimeup`: delivers the level's due messages in queue order, stopping at the
   * first one not due. Resolves with the clock time to look again: the next message's deliver time,
   * DELAY_FOR_A_WHILE from now after a failed put, DELAY_FOR_A_PERIOD from now when the queue is
   * drained (a message arriving wakes the level earlier).
   */
  private async deliverDue(state: DelayLevel): Promise<number> {
    for (;;) {
      const now = this.clock.now();
      if (!this.started) return now + DELAY_FOR_A_WHILE;
      const cq = this.store.getConsumeQueue(SCHEDULE_TOPIC, state.queueId);
      if (cq === undefined) return now + DELAY_FOR_A_PERIOD;
      state.offset = this.clampOffset(state.level, cq, state.offset);
      if (state.offset >= cq.getMaxOffsetInQueue()) return now + DELAY_FOR_A_PERIOD;
      const buf = cq.getIndexBuffer(state.offset, DELIVER_BATCH);
      const count = buf === undefined ? 0 : buf.length / CQ_STORE_UNIT_SIZE;
      if (buf === undefined || count === 0) return now + DELAY_FOR_A_WHILE;
      const due: ConsumeQueueEntry[] = [];
      let next: number | undefined;
      for (let i = 0; i < count; i++) {
        const entry = cqEntryAt(buf, i);
        const at = this.correctDeliverTimestamp(state, now, Number(entry.tagsCode));
        if (at > now) {
          next = at;
          break;
        }
        due.push(entry);
      }
      if (due.length > 0 && !(await this.deliverEntries(state, due))) {
        return this.clock.now() + DELAY_FOR_A_WHILE;
      }
      if (next !== undefined) return next;
    }
  }

  /** Puts the entries' messages; false when one must be retried (the offset stops before it). */
  private async deliverEntries(state: DelayLevel, entries: readonly ConsumeQueueEntry[]): Promise<boolean> {
    const outcomes = await Promise.all(entries.map((entry) => this.deliverOne(state, entry)));
    for (const outcome of outcomes) {
      if (outcome === 'retry') return false;
      state.offset += 1n;
      this.offsetTable.set(state.level, state.offset);
      this.dirty = true;
    }
    return true;
  }

  private delivered(level: number, topic: string, result: AppendMessageResult | undefined): void {
    if (this.onDelivered === undefined || result === undefined) return;
    try {
      this.onDelivered(level, topic, result);
    } catch (err) {
      this.log.warn('onDelivered failed', { error: describe(err) });
    }
  }

  private deliverOne(state: DelayLevel, entry: ConsumeQueueEntry): Promise<Outcome> {
    const where = { level: state.level, commitLogOffset: entry.commitLogOffset, size: entry.size };
    const record = this.store.selectOneMessageByOffset(entry.commitLogOffset, entry.size);
    if (record === undefined) {
      this.log.warn('delayed message not found, passed over', where);
      return Promise.resolve('skip');
    }
    let inner: MessageExtBrokerInner;
    try {
      inner = messageTimeup(record);
    } catch (err) {
      this.log.error('delayed message cannot be delivered, passed over', { ...where, error: describe(err) });
      return Promise.resolve('skip');
    }
    if (inner.topic === TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC) {
      this.log.error('[BUG] the real topic of a delayed message is the half topic, discarded', where);
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
          this.delivered(state.level, inner.topic, result.appendMessageResult);
          return 'ok';
        }
        if (PERMANENT_FAILURES.has(status)) {
          this.log.error('delayed message refused by the store, passed over', {
            ...where,
            topic: inner.topic,
            status,
          });
          return 'skip';
        }
        this.log.warn('delivering a delayed message failed, will retry', { ...where, status });
        return 'retry';
      },
      (err: unknown): Outcome => {
        this.log.warn('delivering a delayed message failed, will retry', { ...where, error: describe(err) });
        return 'retry';
      },
    );
  }
}
