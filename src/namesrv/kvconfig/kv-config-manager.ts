/**
 * KVConfigManager (`namesrv/.../kvconfig/KVConfigManager.java`): namespaced key/value settings kept by the
 * name server (the order topic configs of namespace ORDER_TOPIC_CONFIG, anything mqadmin puts), loaded
 * from kvConfig.json at start and written back after every change.
 *
 * As upstream, a failed write is logged and the change stays in memory (the request still succeeds);
 * a file that cannot be parsed stops the start, as it stops upstream's NamesrvController.initialize.
 * Writes are queued, so two changes never interleave their files, and coalesced: changes made while
 * a write runs share the one next write, so a burst of puts does not rewrite the file once each.
 * Unlike upstream, a put is bounded (one entry, and the whole table: KVConfigLimitError), since any
 * client may put (without the name server ACL) and the file is rewritten whole.
 */
import { readFile } from 'node:fs/promises';
import { RocketMQError } from '../../common/errors.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import { writeFileAtomic } from '../../common/platform/atomic-file.js';
import { encodeKVTable } from '../../common/protocol/kv-table.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { javaOrderedEntries } from '../routeinfo/java-order.js';
import { decodeKVConfig, encodeKVConfig, type KVConfigTable } from './kv-config-serialize-wrapper.js';

/** NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG. */
export const NAMESPACE_ORDER_TOPIC_CONFIG = 'ORDER_TOPIC_CONFIG';

export interface KVConfigManagerOptions {
  kvConfigPath: string;
  logger: Logger;
  /** Largest namespace + key + value of one put, UTF-8 bytes [unbounded]. */
  maxEntrySize?: number;
  /** Largest sum of every entry's namespace + key + value a put may reach, UTF-8 bytes [unbounded]. */
  maxTotalSize?: number;
}

/** A put past kvConfigMaxEntrySize or kvConfigMaxTotalSize (SYSTEM_ERROR, nothing changed). */
export class KVConfigLimitError extends RocketMQError {
  constructor(message: string) {
    super(message, ResponseCode.SYSTEM_ERROR);
  }
}

function entrySize(namespace: string, key: string, value: string): number {
  return Buffer.byteLength(namespace) + Buffer.byteLength(key) + Buffer.byteLength(value);
}

export class KVConfigManager {
  readonly kvConfigPath: string;
  private readonly logger: Logger;
  private readonly configTable: KVConfigTable = new Map();
  private readonly maxEntrySize: number;
  private readonly maxTotalSize: number;
  /** Sum of entrySize over the table. */
  private totalSize = 0;
  private writes: Promise<void> = Promise.resolve();
  /** The queued write not yet started: later changes ride on it. */
  private pending: Promise<void> | undefined;
  /** Any client can send refused puts: one log line a minute. */
  private readonly refusals = new LogRateLimiter(60_000);

  constructor(options: KVConfigManagerOptions) {
    this.kvConfigPath = options.kvConfigPath;
    this.logger = options.logger;
    this.maxEntrySize = options.maxEntrySize ?? Number.POSITIVE_INFINITY;
    this.maxTotalSize = options.maxTotalSize ?? Number.POSITIVE_INFINITY;
  }

  /** Sum of namespace + key + value bytes over every entry. */
  get size(): number {
    return this.totalSize;
  }

  /** Reads kvConfig.json; a missing file is an empty table. Rejects on a file that cannot be read or parsed. */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.kvConfigPath, 'utf8');
    } catch (error) {
      // Upstream checks File.exists(), which is false for these too.
      const code = (error as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw new RocketMQError(`cannot read ${this.kvConfigPath}: ${(error as Error).message}`, 1, {
        cause: error,
      });
    }
    if (text.length === 0) return;
    for (const [namespace, kv] of decodeKVConfig(text, this.kvConfigPath)) {
      const existing = this.configTable.get(namespace);
      if (existing === undefined) this.configTable.set(namespace, kv);
      else for (const [k, v] of kv) existing.set(k, v);
    }
    this.totalSize = 0;
    for (const [namespace, kv] of this.configTable) {
      for (const [k, v] of kv) this.totalSize += entrySize(namespace, k, v);
    }
    this.logger.info('KV config loaded', { file: this.kvConfigPath, namespaces: this.configTable.size });
  }

  /** Throws KVConfigLimitError, changing nothing, past maxEntrySize or maxTotalSize. */
  async putKVConfig(namespace: string, key: string, value: string): Promise<void> {
    const size = entrySize(namespace, key, value);
    if (size > this.maxEntrySize) {
      this.refuse(
        `KV config entry of ${size} bytes is over kvConfigMaxEntrySize (${this.maxEntrySize} bytes: namespace + key + value)`,
      );
    }
    const old = this.configTable.get(namespace)?.get(key);
    const total = this.totalSize + size - (old === undefined ? 0 : entrySize(namespace, key, old));
    if (total > this.maxTotalSize) {
      this.refuse(
        `KV config would hold ${total} bytes, over kvConfigMaxTotalSize (${this.maxTotalSize} bytes)`,
      );
    }
    this.totalSize = total;
    let kv = this.configTable.get(namespace);
    if (kv === undefined) {
      kv = new Map();
      this.configTable.set(namespace, kv);
      this.logger.info('putKVConfig created a namespace', { namespace });
    }
    const updated = kv.has(key);
    kv.set(key, value);
    this.logger.info(updated ? 'putKVConfig updated an item' : 'putKVConfig created an item', {
      namespace,
      key,
    });
    await this.persist();
  }

  private refuse(why: string): never {
    const dropped = this.refusals.take('put');
    if (dropped !== undefined) this.logger.warn('putKVConfig refused', { why, dropped });
    throw new KVConfigLimitError(why);
  }

  async deleteKVConfig(namespace: string, key: string): Promise<void> {
    const kv = this.configTable.get(namespace);
    const old = kv?.get(key);
    if (old !== undefined && kv?.delete(key)) {
      this.totalSize -= entrySize(namespace, key, old);
      this.logger.info('deleteKVConfig deleted an item', { namespace, key });
    }
    await this.persist();
  }

  getKVConfig(namespace: string, key: string): string | undefined {
    return this.configTable.get(namespace)?.get(key);
  }

  /** A KVTable body of the namespace, or undefined when the namespace was never created. */
  getKVListByNamespace(namespace: string): Buffer | undefined {
    const kv = this.configTable.get(namespace);
    return kv === undefined ? undefined : encodeKVTable(new Map(javaOrderedEntries(kv)));
  }

  /**
   * Writes the current table; resolves when a write that includes every change so far and every
   * earlier write are done. Never rejects.
   */
  persist(): Promise<void> {
    if (this.pending !== undefined) return this.pending;
    this.pending = this.writes.then(async () => {
      this.pending = undefined;
      const content = encodeKVConfig(this.configTable);
      try {
        await writeFileAtomic(this.kvConfigPath, content);
      } catch (error) {
        this.logger.error('persisting the KV config failed', {
          file: this.kvConfigPath,
          error: (error as Error).message,
        });
      }
    });
    this.writes = this.pending;
    return this.pending;
  }

  /** Resolves once every queued write has finished. */
  flushed(): Promise<void> {
    return this.writes;
  }
}
