/**
 * OffsetStore: a consumer group's progress per queue. Clustering groups keep it on the brokers
 * (RemoteBrokerOffsetStore), broadcasting consumers in a local file (LocalFileOffsetStore). Offsets
 * are updated in memory as messages are consumed and persisted every persistConsumerOffsetInterval,
 * when a queue is dropped, and at shutdown.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';

export const ReadOffsetType = {
  /** The offset in memory, -1 when none. */
  READ_FROM_MEMORY: 'READ_FROM_MEMORY',
  /** The offset in the store (broker or file), also kept in memory; -1 when none, -2 on failure. */
  READ_FROM_STORE: 'READ_FROM_STORE',
  MEMORY_FIRST_THEN_STORE: 'MEMORY_FIRST_THEN_STORE',
} as const;
export type ReadOffsetType = (typeof ReadOffsetType)[keyof typeof ReadOffsetType];

export interface OffsetStore {
  /** Reads what the store holds (the local file); a no-op for the broker store. */
  load(): Promise<void>;
  /** Sets the offset in memory; with `increaseOnly` it never moves back. */
  updateOffset(mq: MessageQueue, offset: bigint, increaseOnly: boolean): void;
  /**
   * Sets the offset in memory and ignores every later update until removeOffset (5.x, after
   * OFFSET_ILLEGAL: a batch that finishes after the correction cannot move the offset back).
   */
  updateAndFreezeOffset(mq: MessageQueue, offset: bigint): void;
  /** The offset in memory, -1 when none (the pull path's synchronous read). */
  readOffsetInMemory(mq: MessageQueue): bigint;
  readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<bigint>;
  /**
   * Persists the offsets of `mqs` (the queues this consumer holds); resolves once written (the broker
   * answered, or the file is replaced). Failures are logged, never thrown.
   */
  persistAll(mqs: ReadonlySet<string> | readonly MessageQueue[]): Promise<void>;
  persist(mq: MessageQueue): Promise<void>;
  /** Forgets the queue's offset in memory. */
  removeOffset(mq: MessageQueue): void;
  /** The offsets in memory of `topic`'s queues (every queue when undefined). */
  cloneOffsetTable(topic: string | undefined): Array<[MessageQueue, bigint]>;
  /** Writes one offset to the broker now (clustering); oneway or awaited. */
  updateConsumeOffsetToBroker(mq: MessageQueue, offset: bigint, oneway: boolean): Promise<void>;
}
