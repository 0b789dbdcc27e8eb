/**
 * The in-memory half both offset stores share: one offset per queue (upstream's
 * ConcurrentMap<MessageQueue, ControllableOffset>), updated as batches finish. A frozen entry (5.x
 * updateAndFreezeOffset, set when OFFSET_ILLEGAL corrects a dropped queue) ignores further updates
 * until the queue is removed, so a batch that finishes late cannot move the corrected offset back.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';

interface OffsetEntry {
  readonly mq: MessageQueue;
  offset: bigint;
  frozen: boolean;
}

export class OffsetTable {
  private readonly table = new Map<string, OffsetEntry>();

  get size(): number {
    return this.table.size;
  }

  get(mq: MessageQueue): bigint | undefined {
    return this.table.get(mq.key)?.offset;
  }

  /** A queue without an entry gets one; otherwise `increaseOnly` keeps the larger offset. */
  update(mq: MessageQueue, offset: bigint, increaseOnly: boolean): void {
    const entry = this.table.get(mq.key);
    if (entry === undefined) {
      this.table.set(mq.key, { mq, offset, frozen: false });
      return;
    }
    if (entry.frozen) return;
    if (!increaseOnly || offset > entry.offset) entry.offset = offset;
  }

  updateAndFreeze(mq: MessageQueue, offset: bigint): void {
    const entry = this.table.get(mq.key);
    if (entry === undefined) this.table.set(mq.key, { mq, offset, frozen: true });
    else {
      entry.offset = offset;
      entry.frozen = true;
    }
  }

  remove(mq: MessageQueue): boolean {
    return this.table.delete(mq.key);
  }

  /** Every queue and its offset, in the order they were first added. */
  entries(): Array<[MessageQueue, bigint]> {
    return [...this.table.values()].map((e) => [e.mq, e.offset]);
  }

  /** upstream cloneOffsetTable: the queues of `topic`, every queue when the topic is blank. */
  clone(topic: string | undefined): Array<[MessageQueue, bigint]> {
    const all = topic === undefined || topic.trim() === '';
    return this.entries().filter(([mq]) => all || mq.topic === topic);
  }
}

/** The keys (`MessageQueue.key`) of the queues a persistAll was given. */
export function heldQueueKeys(mqs: ReadonlySet<string> | readonly MessageQueue[]): ReadonlySet<string> {
  return isQueueList(mqs) ? new Set(mqs.map((mq) => mq.key)) : mqs;
}

function isQueueList(mqs: ReadonlySet<string> | readonly MessageQueue[]): mqs is readonly MessageQueue[] {
  return Array.isArray(mqs);
}
