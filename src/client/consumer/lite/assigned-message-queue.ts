/**
 * AssignedMessageQueue: the queues a lite pull consumer reads (by rebalance, or as assigned), each
 * with its ProcessQueue, pause flag and three offsets: where the next pull starts, what poll has
 * handed out (the consume offset commits use), and a pending seek.
 */
import type { Clock } from '../../../common/clock.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ProcessQueue, type ProcessQueueSettings } from '../process-queue.js';

export interface MessageQueueState {
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue;
  paused: boolean;
  pullOffset: bigint;
  consumeOffset: bigint;
  seekOffset: bigint;
}

export class AssignedMessageQueue {
  private readonly states = new Map<string, MessageQueueState>();
  private readonly clock: Clock;
  private readonly settings: ProcessQueueSettings;
  /** In subscribe mode, the rebalance's ProcessQueue of a queue (the same object both use). */
  processQueueOf: ((mq: MessageQueue) => ProcessQueue | undefined) | undefined;

  constructor(clock: Clock, settings: ProcessQueueSettings) {
    this.clock = clock;
    this.settings = settings;
  }

  messageQueues(): MessageQueue[] {
    return [...this.states.values()].map((s) => s.mq);
  }

  get(mq: MessageQueue): MessageQueueState | undefined {
    return this.states.get(mq.key);
  }

  has(mq: MessageQueue): boolean {
    return this.states.has(mq.key);
  }

  /** Unknown queues count as paused: nothing pulls them. */
  isPaused(mq: MessageQueue): boolean {
    return this.states.get(mq.key)?.paused ?? true;
  }

  pause(mqs: Iterable<MessageQueue>): void {
    for (const mq of mqs) {
      const s = this.states.get(mq.key);
      if (s !== undefined) s.paused = true;
    }
  }

  resume(mqs: Iterable<MessageQueue>): void {
    for (const mq of mqs) {
      const s = this.states.get(mq.key);
      if (s !== undefined) s.paused = false;
    }
  }

  /** The queues of `topic` become `assigned` (rebalance); the others of that topic are dropped. */
  updateTopic(topic: string, assigned: readonly MessageQueue[]): void {
    const keep = new Set(assigned.map((mq) => mq.key));
    for (const [key, s] of this.states) {
      if (s.mq.topic === topic && !keep.has(key)) {
        s.pq.dropped = true;
        this.states.delete(key);
      }
    }
    this.add(assigned);
  }

  /** Every queue becomes `assigned` (assign mode). */
  updateAll(assigned: readonly MessageQueue[]): void {
    const keep = new Set(assigned.map((mq) => mq.key));
    for (const [key, s] of this.states) {
      if (!keep.has(key)) {
        s.pq.dropped = true;
        this.states.delete(key);
      }
    }
    this.add(assigned);
  }

  removeTopic(topic: string): void {
    for (const [key, s] of this.states) if (s.mq.topic === topic) this.states.delete(key);
  }

  /** The pull offset moves only for the ProcessQueue that pulled (a seek may have replaced it). */
  updatePullOffset(mq: MessageQueue, offset: bigint, pq: ProcessQueue): void {
    const s = this.states.get(mq.key);
    if (s !== undefined && s.pq === pq) s.pullOffset = offset;
  }

  updateConsumeOffset(mq: MessageQueue, offset: bigint): void {
    const s = this.states.get(mq.key);
    if (s !== undefined) s.consumeOffset = offset;
  }

  setSeekOffset(mq: MessageQueue, offset: bigint): void {
    const s = this.states.get(mq.key);
    if (s !== undefined) s.seekOffset = offset;
  }

  private add(assigned: readonly MessageQueue[]): void {
    for (const mq of assigned) {
      if (this.states.has(mq.key)) continue;
      const pq = this.processQueueOf?.(mq) ?? new ProcessQueue(this.clock, this.settings);
      this.states.set(mq.key, {
        mq,
        pq,
        paused: false,
        pullOffset: -1n,
        consumeOffset: -1n,
        seekOffset: -1n,
      });
    }
  }
}
