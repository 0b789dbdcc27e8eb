/**
 * The broker's live configuration as upstream's Configuration object presents it to GET_BROKER_CONFIG
 * and UPDATE_BROKER_CONFIG: every setting plus the file's other properties, and a DataVersion bumped
 * on each update.
 *
 * Remote updates accept an allowlist of harmless keys only. Upstream refuses a short black list
 * (brokerConfigPath, rocketmqHome, configBlackList) and rewrites the config file with anything else
 * (CVE-2023-33246 came through that door). Updates here change memory only.
 *
 * Of those, the keys that can delete or hide stored messages (PROTECTED_BROKER_CONFIG) are refused
 * unless ACL is on, where UPDATE_BROKER_CONFIG needs an admin account: upstream lets anyone who
 * reaches the port set diskMaxUsedSpaceRatio=0 and fileReservedTime=0 and so delete the commit log.
 */
import type { Clock } from '../common/clock.js';
import { formatJavaProperties } from '../common/java-properties.js';
import type { DataVersion } from '../common/protocol/data-version.js';
import {
  BROKER_CONFIG_KEYS,
  type BrokerConfig,
  type BrokerConfigFileKey,
  brokerConfigProperties,
  parseConfigValue,
} from './broker-config.js';
import { MAX_TOPIC_QUEUE_NUMS } from './topic/topic-config-manager.js';

/** Keys UPDATE_BROKER_CONFIG may change, each with the range its value must be in (if any). */
export const UPDATABLE_BROKER_CONFIG: ReadonlyMap<
  BrokerConfigFileKey,
  ((v: number) => string | undefined) | undefined
> = new Map<BrokerConfigFileKey, ((v: number) => string | undefined) | undefined>([
  ['brokerPermission', (v) => (v >= 0 && v <= 15 ? undefined : 'must be a permission 0..15')],
  ['autoCreateTopicEnable', undefined],
  ['autoCreateSubscriptionGroup', undefined],
  [
    'defaultTopicQueueNums',
    (v) => (v >= 0 && v <= MAX_TOPIC_QUEUE_NUMS ? undefined : `must be 0..${MAX_TOPIC_QUEUE_NUMS}`),
  ],
  ['notifyConsumerIdsChangedEnable', undefined],
  ['longPollingEnable', undefined],
  ['shortPollingTimeMills', (v) => (v >= 0 ? undefined : 'must be >= 0')],
  ['slaveReadEnable', undefined],
  ['traceOn', undefined],
  ['rejectTransactionMessage', undefined],
  ['forceRegister', undefined],
  ['maxMessageSize', (v) => (v > 0 ? undefined : 'must be > 0')],
  ['fileReservedTime', (v) => (v >= 0 ? undefined : 'must be >= 0')],
  ['deleteWhen', undefined],
  ['diskMaxUsedSpaceRatio', (v) => (v >= 0 && v <= 100 ? undefined : 'must be 0..100')],
]);

/**
 * Updatable keys that can destroy or hide stored data, each with why: updated remotely only with
 * ACL on (so by an admin account). The other updatable keys change availability or defaults for new
 * topics and groups, never what is stored.
 */
export const PROTECTED_BROKER_CONFIG: ReadonlyMap<BrokerConfigFileKey, string> = new Map<
  BrokerConfigFileKey,
  string
>([
  ['diskMaxUsedSpaceRatio', 'a low ratio deletes commit-log files at once'],
  ['fileReservedTime', 'a short retention deletes commit-log files'],
  ['deleteWhen', 'moves the hour expired files are deleted'],
  ['brokerPermission', 'can make every topic unreadable and unwritable'],
  ['maxMessageSize', 'stored messages larger than it can no longer be read by offset'],
]);

export type ConfigUpdateResult =
  | { readonly ok: true; readonly changed: readonly BrokerConfigFileKey[] }
  | { readonly ok: false; readonly refused: readonly string[] }
  | { readonly ok: false; readonly needsAcl: readonly BrokerConfigFileKey[] }
  | { readonly ok: false; readonly invalid: readonly string[] };

export class BrokerConfiguration {
  private version: DataVersion;

  constructor(
    /** The live config object: updates are written into it. */
    readonly config: BrokerConfig,
    private readonly clock: Clock,
    /** File properties no setting holds (kept and reported, as upstream). */
    private readonly extraProperties: ReadonlyMap<string, string> = new Map(),
  ) {
    this.version = { timestamp: BigInt(clock.now()), counter: 0n };
  }

  get dataVersion(): DataVersion {
    return { ...this.version };
  }

  /** `key=value\n` for every setting (MixAll.properties2String of all configs). */
  getAllConfigsFormatString(): string {
    return formatJavaProperties(brokerConfigProperties(this.config, this.extraProperties));
  }

  /**
   * Applies properties from a remote request: all or nothing. Refused when a key is not allowlisted,
   * or is protected and `aclEnable` is false; invalid when a value does not parse or is out of range;
   * otherwise the values are set and the version bumped.
   */
  update(properties: ReadonlyMap<string, string>, aclEnable: boolean): ConfigUpdateResult {
    const refused = [...properties.keys()].filter(
      (k) => !UPDATABLE_BROKER_CONFIG.has(k as BrokerConfigFileKey),
    );
    if (refused.length > 0) return { ok: false, refused };
    if (!aclEnable) {
      const needsAcl = [...properties.keys()].filter((k) =>
        PROTECTED_BROKER_CONFIG.has(k as BrokerConfigFileKey),
      ) as BrokerConfigFileKey[];
      if (needsAcl.length > 0) return { ok: false, needsAcl };
    }
    const values = new Map<BrokerConfigFileKey, unknown>();
    const invalid: string[] = [];
    for (const [k, text] of properties) {
      const key = k as BrokerConfigFileKey;
      const parsed = parseConfigValue(BROKER_CONFIG_KEYS[key].kind, text);
      if ('error' in parsed) {
        invalid.push(`${key}: ${parsed.error}`);
        continue;
      }
      const range = UPDATABLE_BROKER_CONFIG.get(key);
      const why = range !== undefined && typeof parsed.value === 'number' ? range(parsed.value) : undefined;
      if (why !== undefined) invalid.push(`${key}: ${why}, got ${text}`);
      else values.set(key, parsed.value);
    }
    if (invalid.length > 0) return { ok: false, invalid };
    const target = this.config as unknown as Record<string, unknown>;
    for (const [key, value] of values) target[key] = value;
    this.version = { timestamp: BigInt(this.clock.now()), counter: this.version.counter + 1n };
    return { ok: true, changed: [...values.keys()] };
  }
}
