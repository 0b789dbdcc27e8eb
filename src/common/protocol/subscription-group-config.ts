/**
 * SubscriptionGroupConfig (`common/.../subscription/SubscriptionGroupConfig.java`): a consumer group's
 * broker-side settings (retry queues, retry count, whether members are told of changes). The
 * UPDATE_AND_CREATE_SUBSCRIPTIONGROUP body is one config; subscriptionGroup.json and the
 * GET_ALL_SUBSCRIPTIONGROUP_CONFIG body are the broker's whole table with its DataVersion:
 * `{"dataVersion":{..},"subscriptionGroupTable":{"<group>":{SubscriptionGroupConfig}}}`.
 */
import { type FjEmittableRecord, FjMap, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import {
  type DataVersion,
  type DataVersionDefaults,
  dataVersionValue,
  readDataVersion,
} from './data-version.js';

export interface SubscriptionGroupConfig {
  groupName: string;
  consumeEnable: boolean;
  consumeFromMinEnable: boolean;
  consumeBroadcastEnable: boolean;
  retryQueueNums: number;
  retryMaxTimes: number;
  brokerId: bigint;
  whichBrokerWhenConsumeSlowly: bigint;
  notifyConsumerIdsChangedEnable: boolean;
}

/** Any fields besides the name; undefined means Java's initial value. */
export type SubscriptionGroupConfigFields = {
  [K in Exclude<keyof SubscriptionGroupConfig, 'groupName'>]?: SubscriptionGroupConfig[K] | undefined;
};

/** A config with Java's field initialisers for everything not given. */
export function createSubscriptionGroupConfig(
  groupName: string,
  fields: SubscriptionGroupConfigFields = {},
): SubscriptionGroupConfig {
  return {
    groupName,
    consumeEnable: fields.consumeEnable ?? true,
    consumeFromMinEnable: fields.consumeFromMinEnable ?? true,
    consumeBroadcastEnable: fields.consumeBroadcastEnable ?? true,
    retryQueueNums: fields.retryQueueNums ?? 1,
    retryMaxTimes: fields.retryMaxTimes ?? 16,
    brokerId: fields.brokerId ?? 0n,
    whichBrokerWhenConsumeSlowly: fields.whichBrokerWhenConsumeSlowly ?? 1n,
    notifyConsumerIdsChangedEnable: fields.notifyConsumerIdsChangedEnable ?? true,
  };
}

export function subscriptionGroupConfigValue(c: SubscriptionGroupConfig): FjEmittableRecord {
  return {
    brokerId: c.brokerId,
    consumeBroadcastEnable: c.consumeBroadcastEnable,
    consumeEnable: c.consumeEnable,
    consumeFromMinEnable: c.consumeFromMinEnable,
    groupName: c.groupName,
    notifyConsumerIdsChangedEnable: c.notifyConsumerIdsChangedEnable,
    retryMaxTimes: c.retryMaxTimes,
    retryQueueNums: c.retryQueueNums,
    whichBrokerWhenConsumeSlowly: c.whichBrokerWhenConsumeSlowly,
  };
}

/** Absent fields take Java's initial values; a config without a groupName is refused. */
export function readSubscriptionGroupConfig(r: BodyReader): SubscriptionGroupConfig {
  return createSubscriptionGroupConfig(r.field('groupName').string(), {
    consumeEnable: r.optional('consumeEnable')?.boolean(),
    consumeFromMinEnable: r.optional('consumeFromMinEnable')?.boolean(),
    consumeBroadcastEnable: r.optional('consumeBroadcastEnable')?.boolean(),
    retryQueueNums: r.optional('retryQueueNums')?.int(),
    retryMaxTimes: r.optional('retryMaxTimes')?.int(),
    brokerId: r.optional('brokerId')?.long(),
    whichBrokerWhenConsumeSlowly: r.optional('whichBrokerWhenConsumeSlowly')?.long(),
    notifyConsumerIdsChangedEnable: r.optional('notifyConsumerIdsChangedEnable')?.boolean(),
  });
}

export function encodeSubscriptionGroupConfig(c: SubscriptionGroupConfig): Buffer {
  return Buffer.from(stringifyFastjson(subscriptionGroupConfigValue(c)), 'utf8');
}

export function decodeSubscriptionGroupConfig(body: Buffer | undefined): SubscriptionGroupConfig {
  return readSubscriptionGroupConfig(BodyReader.parse('SubscriptionGroupConfig', body));
}

/** SubscriptionGroupManager as fastjson writes it (subscriptionGroup.json, SubscriptionGroupWrapper). */
export interface SubscriptionGroupWrapper {
  /** group -> config, in the order to write. */
  subscriptionGroupTable: Map<string, SubscriptionGroupConfig>;
  dataVersion: DataVersion;
}

export function encodeSubscriptionGroupWrapper(
  w: SubscriptionGroupWrapper,
  options: { readonly pretty?: boolean } = {},
): string {
  const value = {
    dataVersion: dataVersionValue(w.dataVersion),
    subscriptionGroupTable: new FjMap(
      [...w.subscriptionGroupTable].map(([g, c]) => [g, subscriptionGroupConfigValue(c)] as const),
    ),
  };
  return stringifyFastjson(value, { pretty: options.pretty ?? false });
}

/**
 * Reads a wrapper; `what` names the source in errors (a file path or the body name). A table entry
 * whose config names another group is kept under its key, as Java's map would.
 */
export function decodeSubscriptionGroupWrapper(
  text: string | Buffer,
  defaults: DataVersionDefaults,
  what = 'SubscriptionGroupWrapper',
): SubscriptionGroupWrapper {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const r = BodyReader.parse(what, bytes);
  const subscriptionGroupTable = new Map<string, SubscriptionGroupConfig>();
  for (const [group, config] of r.optional('subscriptionGroupTable')?.entries() ?? []) {
    subscriptionGroupTable.set(group, readSubscriptionGroupConfig(config));
  }
  const version = r.optional('dataVersion');
  return {
    subscriptionGroupTable,
    dataVersion:
      version === undefined
        ? { timestamp: defaults.timestamp, counter: 0n }
        : readDataVersion(version, defaults),
  };
}
