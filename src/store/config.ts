/**
 * MessageStoreConfig: every size, interval and limit of the store, with upstream's names and defaults
 * (apache/rocketmq store/.../config/MessageStoreConfig.java, 4.9.8). Tests shrink file sizes and
 * intervals instead of waiting.
 */

export type FlushDiskType = 'ASYNC_FLUSH' | 'SYNC_FLUSH';

export interface MessageStoreConfig {
  /** Root of the store; commitlog/, consumequeue/, index/, config/, checkpoint, abort, lock live here. */
  storePathRootDir: string;
  /** Size of each commit-log file [1 GiB]. */
  mappedFileSizeCommitLog: number;
  /** Size of each consume-queue file [300,000 entries × 20 bytes]. */
  mappedFileSizeConsumeQueue: number;
  flushDiskType: FlushDiskType;
  /** Async flush: fdatasync interval of the commit log [500 ms]. */
  flushIntervalCommitLog: number;
  /** Async flush: pages (4 KiB) that must be dirty before an interval flush runs [4]. */
  flushCommitLogLeastPages: number;
  /** Async flush: flush whatever is dirty at least this often [10 s]. */
  flushCommitLogThoroughInterval: number;
  /** Sync flush: how long an append waits for its fdatasync before FLUSH_DISK_TIMEOUT [5 s]. */
  syncFlushTimeout: number;
  /** Consume queues: flush interval [1000 ms]. */
  flushIntervalConsumeQueue: number;
  flushConsumeQueueLeastPages: number;
  flushConsumeQueueThoroughInterval: number;
  /** Largest message record accepted [4 MiB]. */
  maxMessageSize: number;
  /** Hours a commit-log file is kept after its last write [72]. */
  fileReservedTime: number;
  /** Hour(s) of day when expired files are deleted, `;`-separated ["04"]. */
  deleteWhen: string;
  /** Disk use (percent) above which files are deleted whatever their age [75]. */
  diskMaxUsedSpaceRatio: number;
  /** Index file: hash slots [5,000,000] and entries [20,000,000] per file. */
  maxHashSlotNum: number;
  maxIndexNum: number;
  messageIndexEnable: boolean;
  /** Pull limits when the data is (or is not) in memory. */
  maxTransferCountOnMessageInMemory: number;
  maxTransferBytesOnMessageInMemory: number;
  maxTransferCountOnMessageInDisk: number;
  maxTransferBytesOnMessageInDisk: number;
  /** Percentage of RAM assumed to hold recent commit-log data [40]. */
  accessMessageInMemoryMaxRatio: number;
  /** Most offsets one index query returns [64]. */
  maxMsgsNumBatch: number;
  /** A commit-log write running longer than this makes appends OS_PAGECACHE_BUSY [1000 ms]. */
  osPageCacheBusyTimeOutMills: number;
  /**
   * Ours: bytes of the newest commit log kept in memory, so reads of recent messages need no file read
   * (upstream reads its memory-mapped files) [8 MiB; 0 keeps none]. A consumer that keeps up reads
   * what was written milliseconds ago, and 8 MiB is 0.4 s of 1 KiB messages at 20,000/s; once a
   * consumer has read the tail, the broker keeps the cache's slabs (this plus one 4 MiB slab), which
   * at 32 MiB were a quarter of its memory.
   */
  commitLogTailCacheBytes: number;
  /**
   * Ours: bytes of commit-log blocks and consume-queue entries a pull reads ahead and keeps for the next
   * pulls, for data older than the in-memory tail (see PullReadCache) [8 MiB; 0 reads exactly what each
   * pull needs].
   */
  pullReadCacheBytes: number;
  /**
   * Ours, stricter than upstream: a corrupt record followed by valid records (mid-log damage) stops
   * start-up unless this allows truncating the log there [false].
   */
  allowMidLogTruncation: boolean;
  /**
   * HA: a slave reports its commit-log end to its master at least this often, and a master sends a
   * slave an empty frame when it has sent nothing for this long [5000 ms].
   */
  haSendHeartbeatInterval: number;
  /**
   * HA: a master drops a slave it has heard nothing from for this long; ours, a slave likewise drops
   * a master it has received nothing from (its read timeout) [20000 ms].
   */
  haHousekeepingInterval: number;
  /** HA: most commit-log bytes in one frame [32 KiB]. */
  haTransferBatchSize: number;
  /** HA: SYNC_MASTER answers SLAVE_NOT_AVAILABLE when the best slave is this many bytes behind [256 MiB]. */
  haSlaveFallbehindMax: number;
  /** HA: how long a SYNC_MASTER send waits for a slave's acknowledgement [3000 ms]. */
  slaveTimeout: number;
  /**
   * Ours: a slave whose commit log ends before the master's first file (deleted on the master since)
   * empties its commit log, consume queues and index and starts again from the master's first file,
   * instead of stalling (upstream #3388). Off by default: it throws away the slave's data [false].
   */
  haAllowResetSlave: boolean;
}

export const DEFAULT_MESSAGE_STORE_CONFIG: Readonly<Omit<MessageStoreConfig, 'storePathRootDir'>> = {
  mappedFileSizeCommitLog: 1024 * 1024 * 1024,
  mappedFileSizeConsumeQueue: 300_000 * 20,
  flushDiskType: 'ASYNC_FLUSH',
  flushIntervalCommitLog: 500,
  flushCommitLogLeastPages: 4,
  flushCommitLogThoroughInterval: 10_000,
  syncFlushTimeout: 5000,
  flushIntervalConsumeQueue: 1000,
  flushConsumeQueueLeastPages: 2,
  flushConsumeQueueThoroughInterval: 60_000,
  maxMessageSize: 4 * 1024 * 1024,
  fileReservedTime: 72,
  deleteWhen: '04',
  diskMaxUsedSpaceRatio: 75,
  maxHashSlotNum: 5_000_000,
  maxIndexNum: 20_000_000,
  messageIndexEnable: true,
  maxTransferCountOnMessageInMemory: 32,
  maxTransferBytesOnMessageInMemory: 256 * 1024,
  maxTransferCountOnMessageInDisk: 8,
  maxTransferBytesOnMessageInDisk: 64 * 1024,
  accessMessageInMemoryMaxRatio: 40,
  maxMsgsNumBatch: 64,
  osPageCacheBusyTimeOutMills: 1000,
  commitLogTailCacheBytes: 8 * 1024 * 1024,
  pullReadCacheBytes: 8 * 1024 * 1024,
  allowMidLogTruncation: false,
  haSendHeartbeatInterval: 5000,
  haHousekeepingInterval: 20_000,
  haTransferBatchSize: 32 * 1024,
  haSlaveFallbehindMax: 256 * 1024 * 1024,
  slaveTimeout: 3000,
  haAllowResetSlave: false,
};

export function messageStoreConfig(
  settings: Partial<MessageStoreConfig> & Pick<MessageStoreConfig, 'storePathRootDir'>,
): MessageStoreConfig {
  return { ...DEFAULT_MESSAGE_STORE_CONFIG, ...settings };
}

/** Paths of the store's parts, as upstream's StorePathConfigHelper names them. */
export const StorePath = {
  commitLog: (root: string): string => `${root}/commitlog`,
  consumeQueue: (root: string): string => `${root}/consumequeue`,
  index: (root: string): string => `${root}/index`,
  checkpoint: (root: string): string => `${root}/checkpoint`,
  abort: (root: string): string => `${root}/abort`,
  lock: (root: string): string => `${root}/lock`,
  config: (root: string): string => `${root}/config`,
} as const;
