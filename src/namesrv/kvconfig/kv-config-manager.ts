/**
 * KVConfigManager (`namesrv/.../kvconfig/KVConfigManager.java`): namespaced key/value settings kept by the
 * name server (the order topic configs of namespace ORDER_TOPIC_CONFIG, anything mqadmin puts), loaded
 * from kvConfig.json at start and written back after every change.
 *
 * As upstream, a failed write is logged and the change stays in memory (the request still succeeds);
 * a file that cannot be parsed stops the start, as it stops upstream's NamesrvController.initialize.
 * Writes are queued, so two changes never interleave their files.
 */
import { readFile } from 'node:fs/promises';
import { RocketMQError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { writeFileAtomic } from '../../common/platform/atomic-file.js';
import { encodeKVTable } from '../../common/protocol/kv-table.js';
import { javaOrderedEntries } from '../routeinfo/java-order.js';
import { decodeKVConfig, encodeKVConfig, type KVConfigTable } from './kv-config-serialize-wrapper.js';

/** NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG. */
export const NAMESPACE_ORDER_TOPIC_CONFIG = 'ORDER_TOPIC_CONFIG';

export interface KVConfigManagerOptions {
  kvConfigPath: string;
  logger: Logger;
}

export class KVConfigManager {
  readonly kvConfigPath: string;
  private readonly logger: Logger;
  private readonly configTable: KVConfigTable = new Map();
  private writes: Promise<void> = Promise.resolve();

  constructor(options: KVConfigManagerOptions) {
    this.kvConfigPath = options.kvConfigPath;
    this.logger = options.logger;
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
    this.logger.info('KV config loaded', { file: this.kvConfigPath, namespaces: this.configTable.size });
  }

  async putKVConfig(namespace: string, key: string, value: string): Promise<void> {
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

  async deleteKVConfig(namespace: string, key: string): Promise<void> {
    const kv = this.configTable.get(namespace);
    if (kv?.delete(key)) this.logger.info('deleteKVConfig deleted an item', { namespace, key });
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

  /** Writes the current table; resolves when it and every earlier write are done. Never rejects. */
  persist(): Promise<void> {
    const content = encodeKVConfig(this.configTable);
    this.writes = this.writes.then(async () => {
      try {
        await writeFileAtomic(this.kvConfigPath, content);
      } catch (error) {
        this.logger.error('persisting the KV config failed', {
          file: this.kvConfigPath,
          error: (error as Error).message,
        });
      }
    });
    return this.writes;
  }

  /** Resolves once every queued write has finished. */
  flushed(): Promise<void> {
    return this.writes;
  }
}
