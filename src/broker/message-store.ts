/**
 * What the broker's processors need of the message store. The store (src/store) implements it; the
 * send and pull processors will need more and extend it there. Methods may answer synchronously or
 * with a promise. Offsets are consume-queue offsets (message counts), as upstream's longs.
 */
export interface BrokerMessageStore {
  /** Called once before the broker listens (upstream `messageStore.load()`). */
  load?(): Promise<void> | void;
  /** Called when the broker starts (before it listens). */
  start?(): Promise<void> | void;
  /** Called on broker shutdown, after the servers stopped. */
  shutdown?(): Promise<void> | void;
  /** The offset the next message of the queue will get; 0 for an unknown queue. */
  getMaxOffsetInQueue(topic: string, queueId: number): bigint | Promise<bigint>;
  /** The oldest offset still stored; 0 for an unknown queue. */
  getMinOffsetInQueue(topic: string, queueId: number): bigint | Promise<bigint>;
  /**
   * True when the message at `consumeOffset` is no longer in memory (QUERY_CONSUMER_OFFSET answers 0
   * for a new group only while the queue's first message is still in memory).
   */
  checkInDiskByConsumeOffset(
    topic: string,
    queueId: number,
    consumeOffset: bigint,
  ): boolean | Promise<boolean>;
  /** The first offset whose message was stored at or after `timestamp` (ms). */
  getOffsetInQueueByTime(topic: string, queueId: number, timestamp: bigint): bigint | Promise<bigint>;
  /** Store time (ms) of the queue's oldest message, -1 when none. */
  getEarliestMessageTime(topic: string, queueId: number): bigint | Promise<bigint>;
  /**
   * Drops the consume queues of topics not in `keepTopics` (DELETE_TOPIC_IN_BROKER, after the topic
   * config is gone). Retry and system topics are the store's to keep.
   */
  cleanUnusedTopic(keepTopics: ReadonlySet<string>): void | Promise<void>;
}

/**
 * A store with no messages: every queue is empty at offset 0. For a broker run without a store
 * (tests, and until the real store is wired into the controller).
 */
export const EMPTY_MESSAGE_STORE: BrokerMessageStore = Object.freeze({
  getMaxOffsetInQueue: () => 0n,
  getMinOffsetInQueue: () => 0n,
  checkInDiskByConsumeOffset: () => false,
  getOffsetInQueueByTime: () => 0n,
  getEarliestMessageTime: () => -1n,
  cleanUnusedTopic: () => {},
});
