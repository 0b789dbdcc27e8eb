/**
 * SubscriptionGroupManager (`broker/.../subscription/SubscriptionGroupManager.java`): consumer group
 * settings in `<storePathRootDir>/config/subscriptionGroup.json`
 * (`{"dataVersion":..,"subscriptionGroupTable":..}`, pretty). Upstream's built-in groups are present
 * from the start; a group a client uses is created with the defaults when autoCreateSubscriptionGroup
 * is on (always for `CID_RMQ_SYS_*` groups).
 */
import type { Clock } from '../../common/clock.js';
import { MixAll } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { javaIsBlank } from '../../common/message/java-lang.js';
import type { DataVersion } from '../../common/protocol/data-version.js';
import {
  createSubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
  encodeSubscriptionGroupWrapper,
  type SubscriptionGroupConfig,
  type SubscriptionGroupWrapper,
} from '../../common/protocol/subscription-group-config.js';
import { CHARACTER_MAX_LENGTH, isTopicOrGroupIllegal } from '../../common/validators.js';
import type { BrokerConfig } from '../broker-config.js';
import { BrokerPathConfig } from '../broker-path-config.js';
import { type ConfigFileIO, ConfigManager } from '../config-manager.js';
import { javaConcurrentHashMapOrder, javaOrderedMap } from '../java-order.js';
import { MAX_TOPIC_QUEUE_NUMS } from '../topic/topic-config-manager.js';

const TABLE_CAPACITY = 1024;

/**
 * Client `Validators.checkGroup` rules with the broker's SYSTEM_ERROR code: a group name ends up in
 * topic names (`%RETRY%<group>`), hence in directory names of the store.
 */
export function validateGroup(group: string | undefined): asserts group is string {
  if (group === undefined || javaIsBlank(group)) {
    throw new ValidationError('the specified group is blank');
  }
  if (group.length > CHARACTER_MAX_LENGTH) {
    throw new ValidationError(`the specified group is longer than group max length ${CHARACTER_MAX_LENGTH}.`);
  }
  if (isTopicOrGroupIllegal(group)) {
    throw new ValidationError(
      `the specified group[${group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$`,
    );
  }
}

export type SubscriptionGroupManagerConfig = Pick<
  BrokerConfig,
  'storePathRootDir' | 'autoCreateSubscriptionGroup'
>;

export interface SubscriptionGroupManagerOptions {
  /** File access (defaults to the file system). */
  io?: ConfigFileIO;
  /** Read live: autoCreateSubscriptionGroup may change at run time. */
  config: SubscriptionGroupManagerConfig;
  clock: Clock;
  logger: Logger;
}

export class SubscriptionGroupManager extends ConfigManager {
  private readonly config: SubscriptionGroupManagerConfig;
  private readonly clock: Clock;
  private readonly table = new Map<string, SubscriptionGroupConfig>();
  private version: DataVersion;

  constructor(options: SubscriptionGroupManagerOptions) {
    super(options.logger, options.io);
    this.config = options.config;
    this.clock = options.clock;
    this.version = { timestamp: BigInt(options.clock.now()), counter: 0n };
    for (const group of [
      MixAll.TOOLS_CONSUMER_GROUP,
      MixAll.FILTERSRV_CONSUMER_GROUP,
      MixAll.SELF_TEST_CONSUMER_GROUP,
    ]) {
      this.table.set(group, createSubscriptionGroupConfig(group));
    }
    for (const group of [
      MixAll.ONS_HTTP_PROXY_GROUP,
      MixAll.CID_ONSAPI_PULL_GROUP,
      MixAll.CID_ONSAPI_PERMISSION_GROUP,
      MixAll.CID_ONSAPI_OWNER_GROUP,
    ]) {
      this.table.set(group, createSubscriptionGroupConfig(group, { consumeBroadcastEnable: true }));
    }
  }

  configFilePath(): string {
    return BrokerPathConfig.subscriptionGroupPath(this.config.storePathRootDir);
  }

  get dataVersion(): DataVersion {
    return { ...this.version };
  }

  /** group -> config; treat the configs as read-only. */
  get subscriptionGroupTable(): ReadonlyMap<string, Readonly<SubscriptionGroupConfig>> {
    return this.table;
  }

  /** The group names in the order upstream's ConcurrentHashMap iterates them. */
  groupNamesInJavaOrder(): string[] {
    return javaConcurrentHashMapOrder([...this.table.keys()], TABLE_CAPACITY);
  }

  private changed(): void {
    this.version = { timestamp: BigInt(this.clock.now()), counter: this.version.counter + 1n };
    void this.persist();
  }

  /**
   * Creates or replaces a group (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP). Throws ValidationError before
   * anything changes for an invalid name or a retry queue count outside 0..MAX_TOPIC_QUEUE_NUMS.
   */
  updateSubscriptionGroupConfig(config: SubscriptionGroupConfig): void {
    validateGroup(config.groupName);
    if (
      !Number.isInteger(config.retryQueueNums) ||
      config.retryQueueNums < 0 ||
      config.retryQueueNums > MAX_TOPIC_QUEUE_NUMS
    ) {
      throw new ValidationError(
        `retryQueueNums must be between 0 and ${MAX_TOPIC_QUEUE_NUMS}, got ${config.retryQueueNums}`,
      );
    }
    const old = this.table.get(config.groupName);
    this.table.set(config.groupName, { ...config });
    this.logger.info(
      old === undefined ? 'create new subscription group' : 'update subscription group config',
      {
        group: config.groupName,
      },
    );
    this.changed();
  }

  /** Stops a group from consuming (broker protection); the change is not persisted, as upstream. */
  disableConsume(groupName: string): void {
    const old = this.table.get(groupName);
    if (old === undefined) return;
    this.table.set(groupName, { ...old, consumeEnable: false });
    this.version = { timestamp: BigInt(this.clock.now()), counter: this.version.counter + 1n };
  }

  /**
   * The group's config; a missing group is created with the defaults when autoCreateSubscriptionGroup
   * is on or the group is a `CID_RMQ_SYS_` one, else undefined. Throws ValidationError for a name
   * that is not a valid group.
   */
  findSubscriptionGroupConfig(group: string): Readonly<SubscriptionGroupConfig> | undefined {
    const existing = this.table.get(group);
    if (existing !== undefined) return existing;
    if (!this.config.autoCreateSubscriptionGroup && !MixAll.isSysConsumerGroup(group)) return undefined;
    validateGroup(group);
    const created = createSubscriptionGroupConfig(group);
    this.table.set(group, created);
    this.logger.info('auto create a subscription group', { group });
    this.changed();
    return created;
  }

  /** Removes a group; false when it did not exist. */
  deleteSubscriptionGroupConfig(groupName: string): boolean {
    if (!this.table.delete(groupName)) {
      this.logger.warn('delete subscription group failed, group not exist', { group: groupName });
      return false;
    }
    this.logger.info('delete subscription group OK', { group: groupName });
    this.changed();
    return true;
  }

  /**
   * A slave takes the master's groups and DataVersion in place of its own (upstream SlaveSynchronize
   * clears the table, puts the master's and persists); resolves once subscriptionGroup.json is written.
   */
  replaceWithMasterTable(wrapper: SubscriptionGroupWrapper): Promise<void> {
    this.table.clear();
    for (const [group, config] of wrapper.subscriptionGroupTable) this.table.set(group, { ...config });
    this.version = { ...wrapper.dataVersion };
    return this.persist();
  }

  encode(pretty = false): string {
    return encodeSubscriptionGroupWrapper(
      { subscriptionGroupTable: javaOrderedMap(this.table, TABLE_CAPACITY), dataVersion: this.version },
      { pretty },
    );
  }

  /** Upstream's putAll: groups of the file replace those of the same name, others stay. */
  protected decode(json: string, file: string): void {
    const wrapper = decodeSubscriptionGroupWrapper(json, { timestamp: BigInt(this.clock.now()) }, file);
    for (const [group, config] of wrapper.subscriptionGroupTable) this.table.set(group, config);
    this.version = { ...wrapper.dataVersion };
    this.logger.info('subscription groups loaded', { groups: wrapper.subscriptionGroupTable.size });
  }
}
