/**
 * IndexService: the list of index files under `<root>/index` (upstream store/index/IndexService.java,
 * 4.9.8). Builds entries `topic#key` for every KEYS token and the UNIQ_KEY of dispatched records,
 * rolls to a new file when the last is full, answers key queries newest file first, deletes files
 * behind the commit log's minimum, and drops files recovery cannot trust.
 */

import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type Clock, systemClock } from '../common/clock.js';
import { javaStringHashCode } from '../common/java-hash.js';
import { createLogger, type Logger } from '../common/logger.js';
import { MessageConst } from '../common/message/message-const.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
import { buildIndexKey, indexKeyHashOf } from '../common/message/tag-hash.js';
import type { MessageStoreConfig } from './config.js';
import { StorePath } from './config.js';
import type { DispatchBatch, DispatchRequest } from './dispatch-request.js';
import { IndexFile, validateIndexDimensions } from './index-file.js';
import { continueJavaHash } from './record-properties.js';
import { SegmentFileError } from './segment-files.js';

/** What IndexService.buildKey puts between the topic and the key. */
const INDEX_KEY_SEPARATOR = '#';

/** Upstream MessageStoreConfig.maxMsgsNumBatch: most offsets one key query returns. */
export const DEFAULT_MAX_MSGS_NUM_BATCH = 64;

export type IndexServiceConfig = Pick<
  MessageStoreConfig,
  'storePathRootDir' | 'maxHashSlotNum' | 'maxIndexNum'
> &
  Partial<Pick<MessageStoreConfig, 'maxMsgsNumBatch'>>;

export interface IndexServiceOptions {
  /** Names new files by its time (local time, as upstream). */
  clock?: Clock;
  logger?: Logger;
  /** Write buffered entries in a microtask after each build (default true); else call commit(). */
  autoCommit?: boolean;
  /**
   * Called once a full file has been synced, with its end time: upstream then records it as the
   * checkpoint's indexMsgTimestamp and flushes the checkpoint.
   */
  onIndexFileFlushed?: (indexMsgTimestamp: bigint) => void | Promise<void>;
}

export interface QueryOffsetResult {
  /** Commit-log offsets of matching entries, newest first (hash collisions included). */
  phyOffsets: bigint[];
  indexLastUpdateTimestamp: bigint;
  indexLastUpdatePhyoffset: bigint;
}

const INDEX_FILE_NAME = /^\d{17}$/;

/** Upstream `UtilAll.timeMillisToHumanString`: yyyyMMddHHmmssSSS in local time. */
export function timeMillisToHumanString(ms: number): string {
  const d = new Date(ms);
  const p = (v: number, n: number): string => String(v).padStart(n, '0');
  return (
    p(d.getFullYear(), 4) +
    p(d.getMonth() + 1, 2) +
    p(d.getDate(), 2) +
    p(d.getHours(), 2) +
    p(d.getMinutes(), 2) +
    p(d.getSeconds(), 2) +
    p(d.getMilliseconds(), 3)
  );
}

export class IndexService {
  /** `<storePathRootDir>/index`. */
  readonly storePath: string;
  private readonly hashSlotNum: number;
  private readonly indexNum: number;
  private readonly maxMsgsNumBatch: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly autoCommit: boolean;
  private readonly onIndexFileFlushed: ((indexMsgTimestamp: bigint) => void | Promise<void>) | undefined;
  private flushChain: Promise<void> = Promise.resolve();
  private files: IndexFile[] = [];
  private lastName = '';
  private failure: Error | undefined;
  private commitScheduled = false;
  private readonly background = new Set<Promise<void>>();

  constructor(config: IndexServiceConfig, options: IndexServiceOptions = {}) {
    validateIndexDimensions(config.maxHashSlotNum, config.maxIndexNum);
    this.storePath = StorePath.index(config.storePathRootDir);
    this.hashSlotNum = config.maxHashSlotNum;
    this.indexNum = config.maxIndexNum;
    this.maxMsgsNumBatch = config.maxMsgsNumBatch ?? DEFAULT_MAX_MSGS_NUM_BATCH;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? createLogger('store.index');
    this.autoCommit = options.autoCommit ?? true;
    this.onIndexFileFlushed = options.onIndexFileFlushed;
  }

  /**
   * Opens the index files, oldest first (upstream `load`). After an abnormal exit a file whose end
   * time is past the checkpoint's `indexMsgTimestamp` is deleted, as upstream: it may be incomplete.
   */
  load(lastExitOK: boolean, indexMsgTimestamp: bigint): void {
    if (this.files.length > 0) throw new SegmentFileError(this.storePath, 'index is already loaded');
    if (!existsSync(this.storePath)) return;
    const names = readdirSync(this.storePath).sort();
    const loaded: IndexFile[] = [];
    try {
      for (const name of names) {
        const path = join(this.storePath, name);
        if (!INDEX_FILE_NAME.test(name)) {
          throw new SegmentFileError(
            path,
            'unexpected file in the index directory (names are yyyyMMddHHmmssSSS)',
          );
        }
        if (name > this.lastName) this.lastName = name;
        const f = IndexFile.open(path, this.hashSlotNum, this.indexNum);
        // After a crash only full files are trusted: the file being filled keeps its slot table in memory
        // between flushes, so its on-disk slots may miss entries even when its end time looks checkpointed
        // (many records share one millisecond). The reput rebuilds it from the commit log.
        if (!lastExitOK && (f.getEndTimestamp() > indexMsgTimestamp || !f.isWriteFull())) {
          this.log.info('deleting index file newer than the checkpoint', { file: path });
          f.destroy();
          continue;
        }
        loaded.push(f);
      }
    } catch (err) {
      for (const f of loaded) f.close();
      throw err;
    }
    this.files = loaded;
  }

  /**
   * Ours, after the commit log's recovery: deletes files holding an entry for a record at or past
   * the commit log's end (`maxPhyOffset`), which no longer exists, and files that inherited such an
   * end offset. Returns how many were deleted.
   */
  truncateDirty(maxPhyOffset: bigint): number {
    const kept: IndexFile[] = [];
    let count = 0;
    for (const f of this.files) {
      if (f.getEndPhyOffset() >= maxPhyOffset) {
        this.log.info('deleting index file past the commit log end', { file: f.fileName, maxPhyOffset });
        f.destroy();
        count++;
      } else {
        kept.push(f);
      }
    }
    this.files = kept;
    return count;
  }

  private checkWritable(): void {
    if (this.failure !== undefined) {
      throw new SegmentFileError(
        this.storePath,
        `index refuses writes after an earlier failure: ${this.failure.message}`,
        undefined,
        { cause: this.failure },
      );
    }
  }

  private fail(err: unknown): never {
    this.failure = err instanceof Error ? err : new Error(String(err));
    throw err;
  }

  /**
   * Indexes one dispatched record (upstream `buildIndex`): its UNIQ_KEY and each KEYS token as
   * `topic#key`. Records already covered (offset below the last file's end offset) and rolled-back
   * transaction records are skipped. Throws SegmentFileError when the index cannot be written.
   */
  buildIndex(req: DispatchRequest): void {
    this.checkWritable();
    let file = this.getAndCreateLastIndexFile();
    if (req.commitLogOffset < file.getEndPhyOffset()) return;
    if (getTransactionValue(req.sysFlag) === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) return;
    try {
      // The record at the index's end offset may be indexed again after a crash (its keys can span a
      // full file and a lost one): keys it already has are skipped so none is lost or doubled.
      const again = req.commitLogOffset === file.getEndPhyOffset();
      if (req.uniqKey !== undefined)
        file = this.putNewKey(file, req, buildIndexKey(req.topic, req.uniqKey), again);
      const keys = req.keys;
      if (keys !== undefined && keys.length > 0) {
        for (const key of keys.split(MessageConst.KEY_SEPARATOR)) {
          if (key.length > 0) file = this.putNewKey(file, req, buildIndexKey(req.topic, key), again);
        }
      }
    } catch (err) {
      this.fail(err);
    }
    if (this.autoCommit && !this.commitScheduled) {
      this.commitScheduled = true;
      queueMicrotask(this.scheduledCommit);
    }
  }

  /**
   * Indexes a batch's records as buildIndex does each, with the keys hashed from what the batch
   * holds (`topic#` hashed once), so no `topic#key` string is built for a UNIQ_KEY. A record at the
   * index's end offset (indexed again after a crash) goes through buildIndex.
   */
  buildIndexBatch(batch: DispatchBatch): void {
    this.checkWritable();
    if (getTransactionValue(batch.sysFlag) === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) return;
    let file = this.getAndCreateLastIndexFile();
    const seed = continueJavaHash(INDEX_KEY_SEPARATOR, javaStringHashCode(batch.topic));
    const storeTimestamp = batch.storeTimestamp;
    let offset = batch.commitLogOffset;
    try {
      for (let i = 0, next = offset; i < batch.count; i++, offset = next) {
        next += batch.msgSize(i);
        const end = file.getEndPhyOffsetNumber();
        if (offset < end) continue;
        if (offset === end) {
          this.buildIndex(batch.request(i));
          file = this.getAndCreateLastIndexFile();
          continue;
        }
        const uniq = batch.uniqKeyHash(i, seed);
        if (uniq !== undefined) file = this.putKeyHash(file, indexKeyHashOf(uniq), offset, storeTimestamp);
        const keys = batch.keys(i);
        if (keys.length > 0) {
          for (const key of keys.split(MessageConst.KEY_SEPARATOR)) {
            if (key.length > 0) {
              const hash = indexKeyHashOf(continueJavaHash(key, seed));
              file = this.putKeyHash(file, hash, offset, storeTimestamp);
            }
          }
        }
      }
    } catch (err) {
      this.fail(err);
    }
    if (this.autoCommit && !this.commitScheduled) {
      this.commitScheduled = true;
      queueMicrotask(this.scheduledCommit);
    }
  }

  private putKeyHash(file: IndexFile, keyHash: number, phyOffset: number, storeTimestamp: number): IndexFile {
    let f = file;
    while (!f.putKeyHash(keyHash, phyOffset, storeTimestamp)) {
      this.log.info('index file is full, creating another one', { file: f.fileName });
      f = this.getAndCreateLastIndexFile();
    }
    return f;
  }

  private putNewKey(file: IndexFile, req: DispatchRequest, key: string, checkExisting: boolean): IndexFile {
    if (checkExisting && this.hasEntry(key, req.commitLogOffset)) return file;
    return this.putKey(file, req, key);
  }

  /** True when a file ending at or after `phyOffset` already holds `key` for it. */
  private hasEntry(key: string, phyOffset: bigint): boolean {
    for (let i = this.files.length - 1; i >= 0; i--) {
      const f = this.files[i] as IndexFile;
      if (f.getEndPhyOffset() < phyOffset) break;
      const found: bigint[] = [];
      f.selectPhyOffset(found, key, this.maxMsgsNumBatch, 0n, BigInt(Number.MAX_SAFE_INTEGER));
      if (found.includes(phyOffset)) return true;
    }
    return false;
  }

  private putKey(file: IndexFile, req: DispatchRequest, key: string): IndexFile {
    let f = file;
    while (!f.putKey(key, req.commitLogOffset, req.storeTimestamp)) {
      this.log.info('index file is full, creating another one', { file: f.fileName });
      f = this.getAndCreateLastIndexFile();
    }
    return f;
  }

  private readonly scheduledCommit = (): void => {
    this.commitScheduled = false;
    try {
      this.commit();
    } catch (err) {
      this.log.error('index write failed', { error: err instanceof Error ? err.message : String(err) });
    }
  };

  /** The last file, or a new one when there is none or it is full (upstream `getAndCreateLastIndexFile`). */
  getAndCreateLastIndexFile(): IndexFile {
    const last = this.files.at(-1);
    if (last !== undefined && !last.isWriteFull()) return last;
    let created: IndexFile;
    try {
      created = IndexFile.create(
        this.storePath,
        this.nextFileName(),
        this.hashSlotNum,
        this.indexNum,
        last?.getEndPhyOffset() ?? 0n,
        last?.getEndTimestamp() ?? 0n,
      );
    } catch (err) {
      this.fail(err);
    }
    this.files.push(created);
    if (last !== undefined) {
      try {
        last.releaseMemory();
      } catch (err) {
        this.fail(err);
      }
      // Rolled files are synced one after another so the checkpoint's index time only moves forward.
      this.flushChain = this.flushChain.then(() => this.flushFullFile(last));
      this.track(this.flushChain);
    }
    return created;
  }

  /** Creation time as yyyyMMddHHmmssSSS, bumped past the previous name so names stay unique and ascending. */
  private nextFileName(): string {
    let name = timeMillisToHumanString(this.clock.now());
    if (name <= this.lastName) name = (BigInt(this.lastName) + 1n).toString().padStart(17, '0');
    this.lastName = name;
    return name;
  }

  private async flushFullFile(f: IndexFile): Promise<void> {
    const indexMsgTimestamp = f.isWriteFull() ? f.getEndTimestamp() : 0n;
    try {
      await f.flush();
    } catch (err) {
      this.failure ??= err instanceof Error ? err : new Error(String(err));
      this.log.error('index file flush failed', { file: f.fileName, error: this.failure.message });
      return;
    }
    if (indexMsgTimestamp > 0n) await this.onIndexFileFlushed?.(indexMsgTimestamp);
  }

  private track(p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => {
      this.log.error('index background task failed', {
        error: err instanceof Error ? err.message : String(err),
      });
    });
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }

  /** Waits for the syncs of rolled files started so far. */
  async whenIdle(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  /**
   * Commit-log offsets of records with `key` in `topic` stored within [begin, end] ms, newest first,
   * at most min(maxNum, maxMsgsNumBatch) (upstream `queryOffset`).
   */
  queryOffset(topic: string, key: string, maxNum: number, begin: bigint, end: bigint): QueryOffsetResult {
    const limit = Math.min(maxNum, this.maxMsgsNumBatch);
    const phyOffsets: bigint[] = [];
    let indexLastUpdateTimestamp = 0n;
    let indexLastUpdatePhyoffset = 0n;
    const indexKey = buildIndexKey(topic, key);
    for (let i = this.files.length; i > 0; i--) {
      const f = this.files[i - 1] as IndexFile;
      if (i === this.files.length) {
        indexLastUpdateTimestamp = f.getEndTimestamp();
        indexLastUpdatePhyoffset = f.getEndPhyOffset();
      }
      if (f.isTimeMatched(begin, end)) f.selectPhyOffset(phyOffsets, indexKey, limit, begin, end);
      if (f.getBeginTimestamp() < begin) break;
      if (phyOffsets.length >= limit) break;
    }
    return { phyOffsets, indexLastUpdateTimestamp, indexLastUpdatePhyoffset };
  }

  /**
   * Deletes leading files whose entries all point below the commit log's minimum `offset`, never the
   * last file (upstream `deleteExpiredFile`). Returns how many were deleted.
   */
  deleteExpiredFile(offset: bigint): number {
    const first = this.files[0];
    if (first === undefined || first.getEndPhyOffset() >= offset) return 0;
    let count = 0;
    while (this.files.length > 1) {
      const f = this.files[0] as IndexFile;
      if (f.getEndPhyOffset() >= offset) break;
      f.destroy();
      this.files.shift();
      count++;
    }
    return count;
  }

  /** Writes what the last file buffers. */
  commit(): void {
    const last = this.files.at(-1);
    if (last === undefined || !last.dirty) return;
    try {
      last.commit();
    } catch (err) {
      this.fail(err);
    }
  }

  /** Writes and fdatasyncs the last file (ours: upstream leaves that to the page cache). */
  async flush(): Promise<void> {
    this.commit();
    const last = this.files.at(-1);
    if (last === undefined) return;
    try {
      await last.flush();
    } catch (err) {
      this.fail(err);
    }
  }

  /** Index files, oldest first. */
  indexFiles(): readonly IndexFile[] {
    return this.files;
  }

  /** Whether an earlier write or sync failed; such an index refuses writes. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Syncs everything and closes the files. */
  async shutdown(): Promise<void> {
    await this.whenIdle();
    try {
      if (this.failure === undefined) await this.flush();
    } finally {
      for (const f of this.files) f.close();
      this.files = [];
    }
  }

  /** Deletes every index file (upstream `destroy`). */
  destroy(): void {
    for (const f of this.files) f.destroy();
    this.files = [];
  }

  /** For logs and tests: file names without directories, oldest first. */
  fileNames(): string[] {
    return this.files.map((f) => basename(f.fileName));
  }
}
