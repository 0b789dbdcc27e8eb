/**
 * TopicConfigManager (`broker/.../topic/TopicConfigManager.java`): the broker's topics, in
 * `<storePathRootDir>/config/topics.json` as a TopicConfigSerializeWrapper (pretty), with the
 * DataVersion the name server compares on each registration. Every change bumps the version and
 * rewrites the file.
 *
 * System topics are put in place at construction as upstream does (the file, loaded next, may
 * override them): SELF_TEST_TOPIC, TBW102 (only with autoCreateTopicEnable; defaultTopicQueueNums
 * queues, perm inherit|R|W), BenchmarkTest, the cluster and broker name topics, OFFSET_MOVED_EVENT,
 * SCHEDULE_TOPIC_XXXX (18 queues), the trace topic (with traceTopicEnable) and
 * `<cluster>_REPLY_TOPIC`. The transaction topics are not among them in 4.9.8: the transaction
 * service creates them on first use through createTopicInSendMessageBackMethod.
 *
 * Every topic name is validated (TopicValidator rules) before it reaches the table or a file.
 */
import type { Clock } from '../../common/clock.js';
import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import type { DataVersion } from '../../common/protocol/data-version.js';
import {
  decodeTopicConfigSerializeWrapper,
  encodeTopicConfigSerializeWrapper,
  type TopicConfigSerializeWrapper,
} from '../../common/protocol/register-broker-body.js';
import { createTopicConfig, type TopicConfig } from '../../common/protocol/topic-config.js';
import { isSystemTopic, TopicValidator, validateTopic } from '../../common/validators.js';
import type { BrokerConfig } from '../broker-config.js';
import { BrokerPathConfig } from '../broker-path-config.js';
import { type ConfigFileIO, ConfigManager } from '../config-manager.js';
import { javaOrderedMap } from '../java-order.js';

/** TopicConfigManager.SCHEDULE_TOPIC_QUEUE_NUM. */
export const SCHEDULE_TOPIC_QUEUE_NUM = 18;

/**
 * Most queues a topic may be given by a request. Upstream has no limit; a huge count would make
 * every per-queue loop (stats, registration on the name server, clients) unbounded.
 */
export const MAX_TOPIC_QUEUE_NUMS = 65_536;

/** The table is a ConcurrentHashMap(1024) upstream; its iteration order is what the file shows. */
const TABLE_CAPACITY = 1024;

export type TopicConfigManagerConfig = Pick<
  BrokerConfig,
  | 'storePathRootDir'
  | 'autoCreateTopicEnable'
  | 'autoCreateTopicMaxCount'
  | 'defaultTopicQueueNums'
  | 'brokerClusterName'
  | 'brokerName'
  | 'clusterTopicEnable'
  | 'brokerTopicEnable'
  | 'traceTopicEnable'
  | 'msgTraceTopicName'
>;

export interface TopicConfigManagerOptions {
  /** File access (defaults to the file system). */
  io?: ConfigFileIO;
  /** Read live: autoCreateTopicEnable may change at run time. */
  config: TopicConfigManagerConfig;
  clock: Clock;
  logger: Logger;
  /**
   * A send or send-back created a topic, or a unit flag changed (upstream then calls
   * registerBrokerAll(false, true, true):
   * a oneway registration so routes show the topic at once).
   */
  onTopicConfigChanged?: (topicConfig: Readonly<TopicConfig>) => void;
}

export class TopicConfigManager extends ConfigManager {
  private readonly config: TopicConfigManagerConfig;
  private readonly clock: Clock;
  private readonly onTopicConfigChanged: ((topicConfig: Readonly<TopicConfig>) => void) | undefined;
  private readonly table = new Map<string, TopicConfig>();
  private version: DataVersion;
  /** Names upstream adds to TopicValidator's global system topic set at construction. */
  private readonly systemTopicNames = new Set<string>();
  /** Any producer can send to new names past the limit: one log line a minute. */
  private readonly autoCreateRefusals: LogRateLimiter;

  constructor(options: TopicConfigManagerOptions) {
    super(options.logger, options.io);
    this.config = options.config;
    this.clock = options.clock;
    this.onTopicConfigChanged = options.onTopicConfigChanged;
    this.version = { timestamp: BigInt(options.clock.now()), counter: 0n };
    this.autoCreateRefusals = new LogRateLimiter(60_000, () => options.clock.now());
    this.addSystemTopics();
  }

  private addSystemTopic(config: TopicConfig): void {
    this.systemTopicNames.add(config.topicName);
    this.table.set(config.topicName, config);
  }

  private addSystemTopics(): void {
    const c = this.config;
    const rw = PermName.PERM_READ | PermName.PERM_WRITE;
    this.addSystemTopic(
      createTopicConfig(TopicValidator.RMQ_SYS_SELF_TEST_TOPIC, { readQueueNums: 1, writeQueueNums: 1 }),
    );
    if (c.autoCreateTopicEnable) {
      this.addSystemTopic(
        createTopicConfig(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, {
          readQueueNums: c.defaultTopicQueueNums,
          writeQueueNums: c.defaultTopicQueueNums,
          perm: PermName.PERM_INHERIT | rw,
        }),
      );
    }
    this.addSystemTopic(
      createTopicConfig(TopicValidator.RMQ_SYS_BENCHMARK_TOPIC, {
        readQueueNums: 1024,
        writeQueueNums: 1024,
      }),
    );
    this.addSystemTopic(
      createTopicConfig(c.brokerClusterName, {
        perm: PermName.PERM_INHERIT | (c.clusterTopicEnable ? rw : 0),
      }),
    );
    this.addSystemTopic(
      createTopicConfig(c.brokerName, {
        readQueueNums: 1,
        writeQueueNums: 1,
        perm: PermName.PERM_INHERIT | (c.brokerTopicEnable ? rw : 0),
      }),
    );
    this.addSystemTopic(
      createTopicConfig(TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT, { readQueueNums: 1, writeQueueNums: 1 }),
    );
    this.addSystemTopic(
      createTopicConfig(TopicValidator.RMQ_SYS_SCHEDULE_TOPIC, {
        readQueueNums: SCHEDULE_TOPIC_QUEUE_NUM,
        writeQueueNums: SCHEDULE_TOPIC_QUEUE_NUM,
      }),
    );
    if (c.traceTopicEnable) {
      this.addSystemTopic(createTopicConfig(c.msgTraceTopicName, { readQueueNums: 1, writeQueueNums: 1 }));
    }
    this.addSystemTopic(
      createTopicConfig(MixAll.getReplyTopic(c.brokerClusterName), { readQueueNums: 1, writeQueueNums: 1 }),
    );
  }

  configFilePath(): string {
    return BrokerPathConfig.topicConfigPath(this.config.storePathRootDir);
  }

  /** The current DataVersion (a copy). */
  get dataVersion(): DataVersion {
    return { ...this.version };
  }

  /** topic -> config; treat the configs as read-only. */
  get topicConfigTable(): ReadonlyMap<string, Readonly<TopicConfig>> {
    return this.table;
  }

  /** TopicValidator.isSystemTopic with this broker's additions (cluster name, broker name, ...). */
  isSystemTopic(topic: string): boolean {
    return isSystemTopic(topic, this.systemTopicNames);
  }

  /** The system topics this broker added to upstream's fixed set. */
  get extraSystemTopics(): ReadonlySet<string> {
    return this.systemTopicNames;
  }

  selectTopicConfig(topic: string): Readonly<TopicConfig> | undefined {
    return this.table.get(topic);
  }

  isOrderTopic(topic: string): boolean {
    return this.table.get(topic)?.order === true;
  }

  /**
   * Why a send may not create `topic` (the broker holds autoCreateTopicMaxCount topics), as the
   * refusal's remark; undefined when it may. Logs a refusal at most once a minute.
   */
  autoCreateRefusal(topic: string, producer: string): string | undefined {
    const max = this.config.autoCreateTopicMaxCount;
    if (max <= 0 || this.table.size < max) return undefined;
    const dropped = this.autoCreateRefusals.take('limit');
    if (dropped !== undefined) {
      this.logger.warn('a send to a new topic was refused: autoCreateTopicMaxCount reached', {
        topic,
        producer,
        topics: this.table.size,
        autoCreateTopicMaxCount: max,
        dropped,
      });
    }
    return (
      `topic[${topic}] not exist and not created: the broker holds ${this.table.size} topics, ` +
      `autoCreateTopicMaxCount is ${max}; create the topic with updateTopic`
    );
  }

  /** DataVersion.nextVersion: now, counter + 1. */
  nextDataVersion(): void {
    this.version = { timestamp: BigInt(this.clock.now()), counter: this.version.counter + 1n };
  }

  private changed(): void {
    this.nextDataVersion();
    void this.persist();
  }

  /**
   * A producer sends to a topic the broker does not have: copy it from `defaultTopic` (normally
   * TBW102) when that topic carries the inherit bit, with min(client's queue count, template's write
   * queues) queues and the template's perm without inherit. Returns the existing or new config, or
   * undefined when the template is missing or not inheritable. Throws ValidationError (SYSTEM_ERROR)
   * for an invalid topic name.
   */
  createTopicInSendMessageMethod(
    topic: string,
    defaultTopic: string,
    remoteAddress: string,
    clientDefaultTopicQueueNums: number,
    topicSysFlag: number,
  ): Readonly<TopicConfig> | undefined {
    validateTopic(topic);
    const existing = this.table.get(topic);
    if (existing !== undefined) return existing;
    let template = this.table.get(defaultTopic);
    if (template === undefined) {
      this.logger.warn('Create new topic failed, because the default topic not exist', {
        topic,
        defaultTopic,
        producer: remoteAddress,
      });
      return undefined;
    }
    if (defaultTopic === TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC && !this.config.autoCreateTopicEnable) {
      // Upstream sets the template's perm in place, so a TBW102 loaded from a file stops inheriting.
      template = { ...template, perm: PermName.PERM_READ | PermName.PERM_WRITE };
      this.table.set(defaultTopic, template);
    }
    if (!PermName.isInherited(template.perm)) {
      this.logger.warn('Create new topic failed, because the default topic has no inherit perm', {
        topic,
        defaultTopic,
        perm: template.perm,
        producer: remoteAddress,
      });
      return undefined;
    }
    const queueNums = Math.max(0, Math.min(clientDefaultTopicQueueNums, template.writeQueueNums));
    const created = createTopicConfig(topic, {
      readQueueNums: queueNums,
      writeQueueNums: queueNums,
      perm: template.perm & ~PermName.PERM_INHERIT,
      topicSysFlag,
      topicFilterType: template.topicFilterType,
    });
    this.table.set(topic, created);
    this.logger.info('Create new topic by default topic', { topic, defaultTopic, producer: remoteAddress });
    this.changed();
    this.onTopicConfigChanged?.(created);
    return created;
  }

  /** A retry or DLQ topic (or the transaction topics) on first use. Throws for an invalid name. */
  createTopicInSendMessageBackMethod(
    topic: string,
    clientDefaultTopicQueueNums: number,
    perm: number,
    topicSysFlag: number,
  ): Readonly<TopicConfig> {
    validateTopic(topic);
    const existing = this.table.get(topic);
    if (existing !== undefined) return existing;
    const created = createTopicConfig(topic, {
      readQueueNums: clientDefaultTopicQueueNums,
      writeQueueNums: clientDefaultTopicQueueNums,
      perm,
      topicSysFlag,
    });
    this.table.set(topic, created);
    this.logger.info('create new topic', { topic, queues: clientDefaultTopicQueueNums, perm });
    this.changed();
    this.onTopicConfigChanged?.(created);
    return created;
  }

  /** TRANS_CHECK_MAX_TIME_TOPIC on first use. */
  createTopicOfTranCheckMaxTime(clientDefaultTopicQueueNums: number, perm: number): Readonly<TopicConfig> {
    return this.createTopicInSendMessageBackMethod(
      TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
      clientDefaultTopicQueueNums,
      perm,
      0,
    );
  }

  private updateSysFlag(topic: string, change: (flag: number) => number): void {
    const config = this.table.get(topic);
    if (config === undefined) return;
    const updated = { ...config, topicSysFlag: change(config.topicSysFlag) };
    this.table.set(topic, updated);
    this.changed();
    this.onTopicConfigChanged?.(updated);
  }

  updateTopicUnitFlag(topic: string, unit: boolean): void {
    this.updateSysFlag(topic, (f) => (unit ? TopicSysFlag.setUnitFlag(f) : TopicSysFlag.clearUnitFlag(f)));
  }

  updateTopicUnitSubFlag(topic: string, hasUnitSub: boolean): void {
    this.updateSysFlag(topic, (f) =>
      hasUnitSub ? TopicSysFlag.setUnitSubFlag(f) : TopicSysFlag.clearUnitSubFlag(f),
    );
  }

  /**
   * Creates or replaces a topic (UPDATE_AND_CREATE_TOPIC). Throws ValidationError before anything
   * changes for an invalid name or a queue count outside 0..MAX_TOPIC_QUEUE_NUMS.
   */
  updateTopicConfig(topicConfig: TopicConfig): void {
    validateTopic(topicConfig.topicName);
    for (const [what, n] of [
      ['readQueueNums', topicConfig.readQueueNums],
      ['writeQueueNums', topicConfig.writeQueueNums],
    ] as const) {
      if (!Number.isInteger(n) || n < 0 || n > MAX_TOPIC_QUEUE_NUMS) {
        throw new ValidationError(`${what} must be between 0 and ${MAX_TOPIC_QUEUE_NUMS}, got ${n}`);
      }
    }
    const old = this.table.get(topicConfig.topicName);
    this.table.set(topicConfig.topicName, { ...topicConfig });
    this.logger.info(old === undefined ? 'create new topic' : 'update topic config', {
      topic: topicConfig.topicName,
    });
    this.changed();
  }

  /**
   * Applies the ORDER_TOPIC_CONFIG table a name server returned on registration: its topics become
   * ordered, every other topic unordered. Undefined (no table in the reply) changes nothing.
   */
  updateOrderTopicConfig(orderTopics: ReadonlyMap<string, string> | undefined): void {
    if (orderTopics === undefined) return;
    let isChange = false;
    for (const [topic, config] of this.table) {
      const order = orderTopics.has(topic);
      if (config.order !== order) {
        this.table.set(topic, { ...config, order });
        isChange = true;
        this.logger.info('update order topic config', { topic, order });
      }
    }
    if (isChange) this.changed();
  }

  /** Removes a topic; false when it did not exist. */
  deleteTopicConfig(topic: string): boolean {
    if (!this.table.delete(topic)) {
      this.logger.warn('delete topic config failed, topic not exists', { topic });
      return false;
    }
    this.logger.info('delete topic config OK', { topic });
    this.changed();
    return true;
  }

  /**
   * A slave takes the master's table and DataVersion in place of its own (upstream SlaveSynchronize
   * clears the table, puts the master's and persists); resolves once topics.json is written.
   */
  replaceWithMasterTable(wrapper: TopicConfigSerializeWrapper): Promise<void> {
    this.table.clear();
    for (const [name, config] of wrapper.topicConfigTable) this.table.set(name, { ...config });
    this.version = { ...wrapper.dataVersion };
    return this.persist();
  }

  /** A snapshot of the table in Java's iteration order, with the current DataVersion. */
  buildTopicConfigSerializeWrapper(): TopicConfigSerializeWrapper {
    return {
      topicConfigTable: javaOrderedMap(this.table, TABLE_CAPACITY),
      dataVersion: this.dataVersion,
    };
  }

  encode(pretty = false): string {
    return encodeTopicConfigSerializeWrapper(this.buildTopicConfigSerializeWrapper(), { pretty }).toString(
      'utf8',
    );
  }

  /** Upstream's putAll: topics of the file replace those of the same name, others stay. */
  protected decode(json: string, _file: string): void {
    const wrapper = decodeTopicConfigSerializeWrapper(Buffer.from(json, 'utf8'), {
      timestamp: BigInt(this.clock.now()),
    });
    for (const [name, config] of wrapper.topicConfigTable) this.table.set(name, config);
    this.version = { ...wrapper.dataVersion };
    this.logger.info('topics loaded', { topics: wrapper.topicConfigTable.size });
  }
}
