/**
 * Name server settings: upstream's NamesrvConfig keys with their 4.9.8 defaults, plus the intervals
 * upstream hard-codes (NamesrvController, RouteInfoManager), named here so tests can shorten them.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '../common/errors.js';
import { DEFAULT_MAX_INFLATED_REGISTER_BODY } from '../common/protocol/register-broker-body.js';

export interface NamesrvSettings {
  /** NettyServerConfig.listenPort; 0 picks a free port. */
  listenPort: number;
  /** Interface to listen on; undefined means every interface (as upstream). */
  listenHost: string | undefined;
  /** NamesrvConfig.kvConfigPath: `~/namesrv/kvConfig.json`. */
  kvConfigPath: string;
  /** NamesrvConfig.orderMessageEnable: routes carry orderTopicConf from the KV table. */
  orderMessageEnable: boolean;
  /** NamesrvConfig.productEnvName (informational). */
  productEnvName: string;
  /** ms between two scans for expired brokers (NamesrvController: every 10 s). */
  scanNotActiveBrokerInterval: number;
  /** ms before the first scan (NamesrvController: 5 s). */
  scanNotActiveBrokerDelay: number;
  /** ms without a registration after which a broker is dropped (RouteInfoManager: 2 min). */
  brokerChannelExpiredTime: number;
  /** Largest inflated size of a compressed REGISTER_BROKER body, bytes (no upstream limit). */
  maxRegisterBodyInflatedSize: number;
  /**
   * Plain ACL on the name server's write requests (register/unregister broker, KV config, broker
   * permissions, topic deletes, its config): signed by an `admin: true` account of the broker's file
   * format. Reads stay open. Our setting [false]: upstream's name server has no ACL.
   */
  aclEnable: boolean;
  /** Where `conf/plain_acl.yml` and `conf/acl/` are [env ROCKETMQ_HOME]. */
  rocketmqHome: string | undefined;
  /** The default ACL file, relative to rocketmqHome unless absolute [conf/plain_acl.yml]. */
  aclPlainFile: string;
  /** ms between looks at the ACL files for changes [5000]. */
  aclFileWatchInterval: number;
  /**
   * Refuse a REGISTER_BROKER that would move a live broker's name and id to another address (or give
   * a live address another id) from a connection that broker did not register on, while its own is
   * open and heartbeating (NO_PERMISSION). Off: taken and logged, as upstream takes it silently.
   * Our setting [true].
   */
  rejectLiveBrokerTakeover: boolean;
  /**
   * Largest PUT_KV_CONFIG entry (namespace + key + value, UTF-8 bytes); a bigger put is refused
   * (SYSTEM_ERROR). Our setting [65536]: upstream has no limit.
   */
  kvConfigMaxEntrySize: number;
  /**
   * Largest KV table (the sum of every entry's namespace + key + value, bytes) a put may reach;
   * kvConfig.json is rewritten whole on each change. Our setting [16777216]: upstream has no limit.
   */
  kvConfigMaxTotalSize: number;
}

export function defaultKvConfigPath(): string {
  return join(homedir(), 'namesrv', 'kvConfig.json');
}

export const DEFAULT_NAMESRV_SETTINGS: Readonly<Omit<NamesrvSettings, 'kvConfigPath' | 'rocketmqHome'>> =
  Object.freeze({
    listenPort: 9876,
    listenHost: undefined,
    orderMessageEnable: false,
    productEnvName: 'center',
    scanNotActiveBrokerInterval: 10_000,
    scanNotActiveBrokerDelay: 5_000,
    brokerChannelExpiredTime: 120_000,
    maxRegisterBodyInflatedSize: DEFAULT_MAX_INFLATED_REGISTER_BODY,
    aclEnable: false,
    aclPlainFile: 'conf/plain_acl.yml',
    aclFileWatchInterval: 5000,
    rejectLiveBrokerTakeover: true,
    kvConfigMaxEntrySize: 64 * 1024,
    kvConfigMaxTotalSize: 16 * 1024 * 1024,
  });

function envRocketmqHome(): string | undefined {
  const home = process.env.ROCKETMQ_HOME;
  return home === undefined || home === '' ? undefined : home;
}

/** Every omitted field takes its default; a bad value throws a ValidationError naming it. */
export function namesrvSettings(overrides: Partial<NamesrvSettings> = {}): NamesrvSettings {
  const s: NamesrvSettings = {
    ...DEFAULT_NAMESRV_SETTINGS,
    kvConfigPath: overrides.kvConfigPath ?? defaultKvConfigPath(),
    rocketmqHome: envRocketmqHome(),
    ...overrides,
  };
  if (!Number.isInteger(s.listenPort) || s.listenPort < 0 || s.listenPort > 65535) {
    throw new ValidationError(`NamesrvSettings.listenPort must be 0..65535, got ${s.listenPort}`);
  }
  const positive = {
    scanNotActiveBrokerInterval: s.scanNotActiveBrokerInterval,
    brokerChannelExpiredTime: s.brokerChannelExpiredTime,
    maxRegisterBodyInflatedSize: s.maxRegisterBodyInflatedSize,
    aclFileWatchInterval: s.aclFileWatchInterval,
    kvConfigMaxEntrySize: s.kvConfigMaxEntrySize,
    kvConfigMaxTotalSize: s.kvConfigMaxTotalSize,
  };
  for (const [name, value] of Object.entries(positive)) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new ValidationError(`NamesrvSettings.${name} must be a number > 0, got ${value}`);
    }
  }
  if (!Number.isFinite(s.scanNotActiveBrokerDelay) || s.scanNotActiveBrokerDelay < 0) {
    throw new ValidationError(
      `NamesrvSettings.scanNotActiveBrokerDelay must be a number >= 0, got ${s.scanNotActiveBrokerDelay}`,
    );
  }
  if (s.kvConfigPath === '') throw new ValidationError('NamesrvSettings.kvConfigPath must not be empty');
  return s;
}
