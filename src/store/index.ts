/** The message store's public surface: what the broker and tools use. */

export { StoreCheckpoint } from './checkpoint.js';
export { CommitLog, type RecoveryResult } from './commit-log.js';
export {
  DEFAULT_MESSAGE_STORE_CONFIG,
  type FlushDiskType,
  type MessageStoreConfig,
  messageStoreConfig,
  StorePath,
} from './config.js';
export { CQ_STORE_UNIT_SIZE } from './consume-queue-entry.js';
export {
  type BrokerRole,
  DefaultMessageStore,
  type DefaultMessageStoreOptions,
} from './default-message-store.js';
export { DEFAULT_MESSAGE_DELAY_LEVEL } from './delay-level.js';
export { type CommitLogDispatcher, DispatchRequest } from './dispatch-request.js';
export {
  type GetMessageResult,
  GetMessageStatus,
  type MessageArrivingListener,
  type MessageFilter,
  type MessageStore,
  type QueryMessageResult,
} from './message-store.js';
export {
  AppendMessageResult,
  AppendMessageStatus,
  PutMessageResult,
  PutMessageStatus,
} from './put-message-result.js';
export { SegmentFileError } from './segment-files.js';
export { StoreCorruptionError, StoreIOError } from './store-error.js';
export { StoreStats } from './store-stats.js';
export type { MessageExtBatch, MessageExtBrokerInner } from './stored-record-writer.js';
