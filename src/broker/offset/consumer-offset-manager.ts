/**
 * ConsumerOffsetManager (`broker/.../offset/ConsumerOffsetManager.java`): the next offset each group
 * consumes in each queue, keyed `topic@group` then queueId, kept in
 * `<storePathRootDir>/config/consumerOffset.json` (pretty fastjson with bare integer keys). Commits
 * change memory only; the broker persists the table every flushConsumerOffsetInterval and on
 * shutdown. A persist with nothing committed since the last one writes nothing.
 */
import {
  JAVA_INTEGER_KEY,
  javaHashMapIterationOrder,
  javaHashMapOrder,
} from '../../common/fastjson/index.js';
import type { Logger } from '../../common/logger.js';
import {
  type ConsumerOffsetTable,
  decodeConsumerOffsetTable,
  encodeConsumerOffsetTable,
} from '../../common/protocol/consumer-offset-wrapper.js';
import type { BrokerConfig } from '../broker-config.js';
import { BrokerPathConfig } from '../broker-path-config.js';
import { type ConfigFileIO, ConfigManager } from '../config-manager.js';

export const TOPIC_GROUP_SEPARATOR = '@';

/** Java's `String.split("@")`: trailing empty strings dropped. */
function splitKey(key: string): string[] {
  const parts = key.split(TOPIC_GROUP_SEPARATOR);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export interface ConsumerOffsetManagerOptions {
  /** File access (defaults to the file system). */
  io?: ConfigFileIO;
  config: Pick<BrokerConfig, 'storePathRootDir'>;
  logger: Logger;
}

export class ConsumerOffsetManager extends ConfigManager {
  private readonly config: Pick<BrokerConfig, 'storePathRootDir'>;
  private table: ConsumerOffsetTable = new Map();
  private dirty = false;

  constructor(options: ConsumerOffsetManagerOptions) {
    super(options.logger, options.io);
    this.config = options.config;
  }

  configFilePath(): string {
    return BrokerPathConfig.consumerOffsetPath(this.config.storePathRootDir);
  }

  /** `topic@group` -> queueId -> offset; read-only view. */
  get offsetTable(): ReadonlyMap<string, ReadonlyMap<number, bigint>> {
    return this.table;
  }

  /** Records the next offset `group` consumes in the queue. `clientHost` names the committer in logs. */
  commitOffset(clientHost: string, group: string, topic: string, queueId: number, offset: bigint): void {
    const key = topic + TOPIC_GROUP_SEPARATOR + group;
    let queues = this.table.get(key);
    if (queues === undefined) {
      queues = new Map();
      this.table.set(key, queues);
    }
    const stored = queues.get(queueId);
    queues.set(queueId, offset);
    this.dirty = true;
    if (stored !== undefined && offset < stored) {
      this.logger.warn('[NOTIFYME]update consumer offset less than store', {
        clientHost,
        key,
        queueId,
        requestOffset: offset,
        storeOffset: stored,
      });
    }
  }

  /** The committed offset, or -1n when the group has none for the queue. */
  queryOffset(group: string, topic: string, queueId: number): bigint {
    return this.table.get(topic + TOPIC_GROUP_SEPARATOR + group)?.get(queueId) ?? -1n;
  }

  /** Every queue's offset of the group in the topic, or undefined. */
  queryOffsets(group: string, topic: string): ReadonlyMap<number, bigint> | undefined {
    return this.table.get(topic + TOPIC_GROUP_SEPARATOR + group);
  }

  /** Topics the group has offsets in. */
  whichTopicByConsumer(group: string): Set<string> {
    const topics = new Set<string>();
    for (const key of this.table.keys()) {
      const parts = splitKey(key);
      if (parts.length === 2 && parts[1] === group) topics.add(parts[0] as string);
    }
    return topics;
  }

  /** Groups with offsets in the topic. */
  whichGroupByTopic(topic: string): Set<string> {
    const groups = new Set<string>();
    for (const key of this.table.keys()) {
      const parts = splitKey(key);
      if (parts.length === 2 && parts[0] === topic) groups.add(parts[1] as string);
    }
    return groups;
  }

  /** Copies srcGroup's offsets in the topic to destGroup (replacing destGroup's). */
  cloneOffset(srcGroup: string, destGroup: string, topic: string): void {
    const offsets = this.table.get(topic + TOPIC_GROUP_SEPARATOR + srcGroup);
    if (offsets === undefined) return;
    this.table.set(topic + TOPIC_GROUP_SEPARATOR + destGroup, new Map(offsets));
    this.dirty = true;
  }

  /** Drops every offset of the group (DELETE_SUBSCRIPTIONGROUP with removeOffset). */
  removeOffset(group: string): void {
    for (const key of [...this.table.keys()]) {
      const parts = splitKey(key);
      if (parts.length === 2 && parts[1] === group) {
        this.table.delete(key);
        this.dirty = true;
        this.logger.warn('clean group offset', { key });
      }
    }
  }

  /**
   * Per queue, the smallest offset any group (but `filterGroups`, comma-separated) has committed in
   * the topic at or above the store's min offset.
   */
  queryMinOffsetInAllGroup(
    topic: string,
    filterGroups: string | undefined,
    minOffsetInQueue: (topic: string, queueId: number) => bigint,
  ): Map<number, bigint> {
    const excluded = new Set((filterGroups ?? '').split(',').filter((g) => g.trim() !== ''));
    const result = new Map<number, bigint>();
    for (const [key, queues] of this.table) {
      const parts = splitKey(key);
      if (parts[0] !== topic || (parts[1] !== undefined && excluded.has(parts[1]))) continue;
      for (const [queueId, offset] of queues) {
        if (offset < minOffsetInQueue(topic, queueId)) continue;
        const known = result.get(queueId);
        result.set(queueId, known === undefined || offset < known ? offset : known);
      }
    }
    return result;
  }

  /**
   * Drops the offsets of groups no longer subscribed to the topic whose every queue's offset is at
   * or below the store's min offset (nothing left to consume from there).
   */
  scanUnsubscribedTopic(
    isSubscribed: (group: string, topic: string) => boolean,
    minOffsetInQueue: (topic: string, queueId: number) => bigint,
  ): void {
    for (const [key, queues] of [...this.table]) {
      const parts = splitKey(key);
      if (parts.length !== 2) continue;
      const [topic, group] = parts as [string, string];
      if (isSubscribed(group, topic) || queues.size === 0) continue;
      let behind = true;
      for (const [queueId, offset] of queues) {
        if (offset > minOffsetInQueue(topic, queueId)) {
          behind = false;
          break;
        }
      }
      if (behind) {
        this.table.delete(key);
        this.dirty = true;
        this.logger.warn('remove topic offset', { key });
      }
    }
  }

  /**
   * A slave takes the master's offsets over its own, key by key (upstream SlaveSynchronize's putAll:
   * keys only the slave has stay); resolves once consumerOffset.json is written.
   */
  putAllFromMaster(table: ConsumerOffsetTable): Promise<void> {
    for (const [key, queues] of table) this.table.set(key, new Map(queues));
    this.dirty = true;
    return this.persist();
  }

  /** True when something changed since the last persist started. */
  get hasChanges(): boolean {
    return this.dirty;
  }

  /** Writes the table when it changed since the last write (or always with `force`). */
  override persist(force = false): Promise<void> {
    if (!force && !this.dirty) return this.flushed();
    return super.persist();
  }

  protected override encodeForFile(): string {
    this.dirty = false;
    return this.encode(true);
  }

  protected override onPersistFailed(): void {
    this.dirty = true;
  }

  encode(pretty = false): string {
    const ordered: ConsumerOffsetTable = new Map();
    // Once a broker has restarted, its tables are the default-sized ConcurrentHashMaps fastjson
    // makes when reading the file, so that is the order the file shows.
    for (const key of javaHashMapOrder([...this.table.keys()])) {
      const queues = this.table.get(key) as Map<number, bigint>;
      const ids = javaHashMapIterationOrder([...queues.keys()], JAVA_INTEGER_KEY);
      ordered.set(key, new Map(ids.map((id) => [id, queues.get(id) as bigint])));
    }
    return encodeConsumerOffsetTable(ordered, { pretty });
  }

  /** Upstream replaces the whole table with the file's. */
  protected decode(json: string, file: string): void {
    this.table = decodeConsumerOffsetTable(json, file);
    this.logger.info('consumer offsets loaded', { keys: this.table.size });
  }
}
