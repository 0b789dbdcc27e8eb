/**
 * The message store as the broker sees it (upstream MessageStore, the parts a 4.x broker uses).
 * DefaultMessageStore implements it over the commit log, consume queues and index; the broker's
 * processors depend on this interface only. Offsets named `offset` are consume-queue (logical)
 * offsets; `commitLogOffset` / phy offsets are byte positions in the commit log.
 */
import type { ConsumeQueueEntry } from './consume-queue-entry.js';
import type { DispatchRequest } from './dispatch-request.js';
import type { PutMessageResult } from './put-message-result.js';
import type { MessageExtBatch, MessageExtBrokerInner } from './stored-record-writer.js';

/**
 * The records of a result as one buffer (a pull or query body): when they lie back to back in one
 * memory block — a run of adjacent records read at once — that block itself, else a joined copy.
 */
export function joinRecords(messages: readonly Buffer[], totalSize: number): Buffer {
  const first = messages[0];
  if (first === undefined) return Buffer.alloc(0);
  let end = first.byteOffset + first.length;
  for (let i = 1; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.buffer !== first.buffer || m.byteOffset !== end) return Buffer.concat(messages, totalSize);
    end += m.length;
  }
  if (end - first.byteOffset !== totalSize) return Buffer.concat(messages, totalSize);
  return Buffer.from(first.buffer, first.byteOffset, totalSize);
}

/** What QUERY_CONSUME_QUEUE shows of one consume queue. */
export interface ConsumeQueueView {
  readonly minQueueIndex: bigint;
  readonly maxQueueIndex: bigint;
  readonly entries: readonly ConsumeQueueEntry[] | undefined;
}

/** Upstream GetMessageStatus. */
export const GetMessageStatus = {
  FOUND: 'FOUND',
  NO_MATCHED_MESSAGE: 'NO_MATCHED_MESSAGE',
  MESSAGE_WAS_REMOVING: 'MESSAGE_WAS_REMOVING',
  OFFSET_FOUND_NULL: 'OFFSET_FOUND_NULL',
  OFFSET_OVERFLOW_BADLY: 'OFFSET_OVERFLOW_BADLY',
  OFFSET_OVERFLOW_ONE: 'OFFSET_OVERFLOW_ONE',
  OFFSET_TOO_SMALL: 'OFFSET_TOO_SMALL',
  NO_MATCHED_LOGIC_QUEUE: 'NO_MATCHED_LOGIC_QUEUE',
  NO_MESSAGE_IN_QUEUE: 'NO_MESSAGE_IN_QUEUE',
} as const;
export type GetMessageStatus = (typeof GetMessageStatus)[keyof typeof GetMessageStatus];

export interface GetMessageResult {
  status: GetMessageStatus;
  nextBeginOffset: bigint;
  minOffset: bigint;
  maxOffset: bigint;
  /** The consumer is far behind: the broker suggests a slave (whichBrokerWhenConsumeSlowly). */
  suggestPullingFromSlave: boolean;
  /** Stored records, each exactly the bytes of the commit log (a pull body is their concatenation). */
  messages: Buffer[];
  /** Sum of the records' lengths. */
  bufferTotalSize: number;
  /** Queue offsets of `messages`, in order (upstream messageQueueOffset). */
  messageQueueOffsets: bigint[];
}

/**
 * Decides which messages a pull returns; the store knows no filter language (tag hashes, SQL92 live
 * in src/filter and the broker). `isMatchedByConsumeQueue` sees the consume-queue tag hash;
 * `isMatchedByCommitLog` may look at the stored record (e.g. its properties) when it needs to.
 */
export interface MessageFilter {
  isMatchedByConsumeQueue(tagsCode: bigint | undefined): boolean;
  isMatchedByCommitLog(record: Buffer | undefined): boolean;
}

export interface QueryMessageResult {
  /** Matching stored records. */
  messages: Buffer[];
  indexLastUpdateTimestamp: bigint;
  indexLastUpdatePhyoffset: bigint;
  bufferTotalSize: number;
}

/** Called after each dispatched message (long polling wakes the waiters of that queue). */
export type MessageArrivingListener = (request: DispatchRequest) => void;

/**
 * Whether records of (topic, queueId) would make a listener do anything just now (long polling: a
 * pull is held on that queue). False lets the store skip building a batch's requests for it.
 */
export type MessageArrivingInterest = (topic: string, queueId: number) => boolean;

export interface MessageStore {
  /** Opens files and recovers (normal or abnormal, from the abort file and checkpoint). */
  load(): Promise<void>;
  /** Starts flush, dispatch and retention services. */
  start(): Promise<void>;
  /** Flushes everything, writes the checkpoint, removes the abort file, closes files. */
  shutdown(): Promise<void>;

  putMessage(message: MessageExtBrokerInner): Promise<PutMessageResult>;
  putMessages(batch: MessageExtBatch): Promise<PutMessageResult>;

  getMessage(
    group: string,
    topic: string,
    queueId: number,
    offset: bigint,
    maxMsgNums: number,
    filter?: MessageFilter,
  ): Promise<GetMessageResult>;

  getMaxOffsetInQueue(topic: string, queueId: number): bigint;
  getMinOffsetInQueue(topic: string, queueId: number): bigint;
  /** Commit-log offset of the message at `consumeQueueOffset`, -1 when there is none. */
  getCommitLogOffsetInQueue(topic: string, queueId: number, consumeQueueOffset: bigint): bigint;
  getOffsetInQueueByTime(topic: string, queueId: number, timestamp: bigint): bigint;
  /** Store time of the queue's oldest message, -1 when none. */
  getEarliestMessageTime(topic: string, queueId: number): bigint;
  /** Store time of the message at `consumeQueueOffset`, -1 when none. */
  getMessageStoreTimeStamp(topic: string, queueId: number, consumeQueueOffset: bigint): bigint;
  /** The stored record at a commit-log offset (VIEW_MESSAGE_BY_ID, send-back), undefined if gone. */
  selectOneMessageByOffset(commitLogOffset: bigint): Buffer | undefined;
  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: bigint,
    end: bigint,
  ): Promise<QueryMessageResult>;
  /** True when the message at `consumeOffset` is no longer likely to be in memory. */
  checkInDiskByConsumeOffset(topic: string, queueId: number, consumeOffset: bigint): boolean;
  getMinPhyOffset(): bigint;
  getMaxPhyOffset(): bigint;
  /**
   * QUERY_CONSUME_QUEUE (`mqadmin queryCq`): the queue's logical min and max offsets and its raw
   * entries from `index` to the end of the file holding it, at most `count` of them (upstream's
   * getIndexBuffer); `entries` is undefined when there are none at `index`. Undefined when the store
   * has no such queue.
   */
  queryConsumeQueue(
    topic: string,
    queueId: number,
    index: bigint,
    count: number,
  ): ConsumeQueueView | undefined;
  /** Drops consume queues of topics not in `keepTopics` (retry and system topics are kept). */
  cleanUnusedTopic(keepTopics: ReadonlySet<string>): void;
  /** Destroys consume queues whose last entry is below the commit log's first offset. */
  cleanExpiredConsumerQueue(): void;
  /** The next retention rounds delete expired commit-log files at any hour. */
  executeDeleteFilesManually(): void;
  /**
   * Registers a listener called after each message is dispatched to its consume queue; with
   * `interest`, the records of a batch to a queue it has no interest in may be passed over.
   */
  onMessageArrived(listener: MessageArrivingListener, interest?: MessageArrivingInterest): void;
}
