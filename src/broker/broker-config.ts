/**
 * Broker settings: the keys of upstream's BrokerConfig, NettyServerConfig, NettyClientConfig and
 * MessageStoreConfig that rocketmq-ts models, with their 4.9.8 defaults, in one flat object (a
 * broker.conf is one flat namespace too: BrokerStartup hands the same Properties to all four
 * objects). Plus the intervals upstream hard-codes, named so tests can shorten them; those are not
 * read from files.
 *
 * `loadBrokerConfig` reads broker.conf text the way BrokerStartup does (MixAll.properties2Object
 * keyed by setter names) with two differences: a value that does not parse is an error naming the
 * key (Java swallows the exception and keeps the default), and a boolean must be `true` or `false`
 * (Java reads anything else as false). Keys the four upstream classes accept but rocketmq-ts does not
 * use are reported as ignored; any other key is unknown and logged as a warning naming it. The
 * `tls.*` keys, which upstream reads as JVM system properties, are returned apart (`tls`).
 */
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { ValidationError } from '../common/errors.js';
import { parseJavaProperties } from '../common/java-properties.js';
import type { Logger } from '../common/logger.js';
import { localAddress } from '../common/platform/local-address.js';
import { DEFAULT_FILTER_CACHE_SIZE } from '../filter/filter-factory.js';
import {
  DEFAULT_NAMED_FILTER_MAX_TIMEOUTS,
  DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS,
} from '../filter/named-filter.js';
import { DEFAULT_SQL_MAX_DEPTH, DEFAULT_SQL_MAX_LENGTH } from '../filter/sql/parser.js';
import { DEFAULT_REQUEST_BODY_MAX_SIZE } from '../remoting/transport/body-limits.js';
import {
  isSecretTlsPropertyKey,
  isTlsPropertyKey,
  parseTlsProperties,
  type TlsSystemConfig,
} from '../remoting/transport/tls-system-config.js';
import { DEFAULT_MESSAGE_STORE_CONFIG, type MessageStoreConfig } from '../store/config.js';
import {
  ASSIGNMENT_CONFIG_KEYS,
  type BrokerAssignmentConfig,
  DEFAULT_ASSIGNMENT_CONFIG,
} from './broker-config-assignment.js';
import {
  type BrokerHaConfig,
  checkHaAuth,
  checkHaListenPort,
  checkHaTransfer,
  DEFAULT_HA_CONFIG,
  HA_CONFIG_KEYS,
  haListenPortFor,
} from './broker-config-ha.js';
import {
  type BrokerHttpConfig,
  checkHttpConfig,
  DEFAULT_HTTP_CONFIG,
  HTTP_CONFIG_KEYS,
} from './broker-config-http.js';
import {
  BOOL,
  type ConfigKeySpec,
  type ConfigKind,
  checkPositive,
  describeValue,
  formatConfigValue,
  INT,
  LONG,
  OPT_STR,
  ownedBy,
  parseConfigValue,
  STR,
} from './broker-config-keys.js';
import {
  type BrokerPopConfig,
  checkPopConfig,
  DEFAULT_POP_CONFIG,
  POP_CONFIG_KEYS,
} from './broker-config-pop.js';
import {
  type BrokerPopReviveConfig,
  checkPopReviveConfig,
  DEFAULT_POP_REVIVE_CONFIG,
  POP_REVIVE_CONFIG_KEYS,
} from './broker-config-pop-revive.js';
import {
  type BrokerRemotingConfig,
  checkRemotingConfig,
  DEFAULT_REMOTING_CONFIG,
  REMOTING_CONFIG_KEYS,
} from './broker-config-remoting.js';
import {
  type BrokerTimerConfig,
  checkTimerConfig,
  DEFAULT_TIMER_CONFIG,
  TIMER_CONFIG_KEYS,
} from './broker-config-timer.js';
import { DEFAULT_MAX_STATS_ITEMS_PER_SET } from './stats/broker-stats-manager.js';
import { UPSTREAM_IGNORED_KEYS } from './upstream-ignored-keys.js';

export { type ConfigKeySpec, type ConfigKind, formatConfigValue, parseConfigValue, UPSTREAM_IGNORED_KEYS };

export type BrokerRole = 'ASYNC_MASTER' | 'SYNC_MASTER' | 'SLAVE';

/** broker.conf: BrokerConfig, NettyServer/ClientConfig and MessageStoreConfig keys in one object, as upstream. */
export interface BrokerConfig
  extends MessageStoreConfig,
    BrokerHaConfig,
    BrokerHttpConfig,
    BrokerRemotingConfig,
    BrokerPopReviveConfig,
    BrokerTimerConfig,
    BrokerAssignmentConfig,
    BrokerPopConfig {
  // ---- BrokerConfig ----
  /** `;`-separated name server addresses; env NAMESRV_ADDR by default. */
  namesrvAddr: string | undefined;
  /** Address advertised to clients and name servers (`brokerIP1:listenPort`). */
  brokerIP1: string;
  /** Address of the HA service (`brokerIP2:haListenPort`). */
  brokerIP2: string;
  /** Defaults to the host name. */
  brokerName: string;
  brokerClusterName: string;
  /** 0 = master. */
  brokerId: number;
  /** Permission applied to every topic in registrations when it lacks read or write [RW]. */
  brokerPermission: number;
  /** Queues of TBW102, the auto-create template [8]. */
  defaultTopicQueueNums: number;
  autoCreateTopicEnable: boolean;
  /**
   * A send to a new topic creates it only while the broker holds fewer topics than this (every
   * topic counts; admin-created ones are never refused); past it the send gets TOPIC_NOT_EXIST naming
   * the limit. 0 = no limit. Our setting [5000]: upstream has no limit.
   */
  autoCreateTopicMaxCount: number;
  /**
   * ms the registration of topics created by sends waits for more of them, so a burst goes to the
   * name server in one registration carrying only them. Our setting [0]: upstream registers the whole
   * table once per new topic.
   */
  registerChangedTopicsDelay: number;
  /** The cluster-name topic is readable and writable. */
  clusterTopicEnable: boolean;
  /** The broker-name topic is readable and writable. */
  brokerTopicEnable: boolean;
  autoCreateSubscriptionGroup: boolean;
  msgTraceTopicName: string;
  traceTopicEnable: boolean;
  /** ms between two persists of consumerOffset.json [5 s]. */
  flushConsumerOffsetInterval: number;
  flushConsumerOffsetHistoryInterval: number;
  rejectTransactionMessage: boolean;
  longPollingEnable: boolean;
  /** Hold time of a pull when long polling is off [1 s]. */
  shortPollingTimeMills: number;
  notifyConsumerIdsChangedEnable: boolean;
  /** MSG_REGION of send responses. */
  regionId: string;
  registerBrokerTimeoutMills: number;
  slaveReadEnable: boolean;
  traceOn: boolean;
  enablePropertyFilter: boolean;
  filterSupportRetry: boolean;
  compressedRegister: boolean;
  /** Register every period even when the name server has our DataVersion. */
  forceRegister: boolean;
  /** ms between registrations, clamped to [10 s, 60 s] [30 s]. */
  registerNameServerPeriod: number;
  /** ms a half message waits for END_TRANSACTION before its producer is asked about it [6 s]. */
  transactionTimeOut: number;
  /** Times a producer is asked about one half message before it goes to TRANS_CHECK_MAX_TIME_TOPIC [15]. */
  transactionCheckMax: number;
  /** ms between two passes of the transaction check service [60 s]. */
  transactionCheckInterval: number;
  /** ms a consumer group's filter data is kept after its last consumer left [24 h]. */
  filterDataCleanTimeSpan: number;
  aclEnable: boolean;
  storeReplyMessageEnable: boolean;
  autoDeleteUnusedStats: boolean;
  // ---- NettyServerConfig ----
  /** The broker port [10911]; the VIP channel listens on listenPort - 2. 0 picks free ports (tests). */
  listenPort: number;
  serverChannelMaxIdleTimeSeconds: number;
  serverSocketBacklog: number;
  // ---- NettyClientConfig (the broker's connections to name servers) ----
  connectTimeoutMillis: number;
  clientChannelMaxIdleTimeSeconds: number;
  clientCloseSocketIfTimeout: boolean;
  // ---- MessageStoreConfig ----
  storePathCommitLog: string | undefined;
  brokerRole: BrokerRole;
  /** Delay levels 1..n of scheduled messages. */
  messageDelayLevel: string;
  flushDelayOffsetInterval: number;
  defaultQueryMaxNum: number;
  checkCRCOnRecover: boolean;
  cleanResourceInterval: number;
  /** A slave corrects pull offsets (PULL_OFFSET_MOVED) as a master does [false]. */
  offsetCheckInSlave: boolean;
  // ---- rocketmq-ts only ----
  /**
   * Longest filter expression (SQL92) a subscription may carry, in characters; a longer one is refused
   * before it is read, on every path that compiles one (pull, heartbeat, CHECK_CLIENT_CONFIG).
   * Our setting, 1..1048576 [65536]: upstream has no bound.
   */
  filterExpressionMaxLength: number;
  /**
   * Deepest nesting (parentheses, NOT, signs) and deepest tree of a filter expression, refused where
   * it is crossed, before anything deeper is built. Our setting, 1..256 [100]: upstream has no bound;
   * the parser and evaluator recurse, so the ceiling keeps well inside Node's stack.
   */
  filterExpressionMaxDepth: number;
  /**
   * Path of an ES module holding the operator's named filters (subscriptions of expression type NAMED,
   * or upstream's class-filter flag, name them): its named export `filters` or else its default export
   * maps each name to `(message) => boolean`. Imported once when the broker starts (a relative path
   * from the broker's working directory); a module that is missing, does not load or exports no such
   * map stops the start. Empty [default]: no named filters. Never changeable remotely.
   */
  namedFilterModule: string;
  /**
   * Compiled filter expressions (SQL92) the broker keeps by text, failures included, least recently
   * used dropped first; 0 keeps none. Our setting [256]: upstream's parse cache has no bound.
   */
  filterExpressionCacheSize: number;
  /**
   * Keys each broker statistic keeps (topics, topic@group, queue keys...): creating one more drops
   * the oldest-created, so client-chosen names cannot grow the stats without bound (about 1 KiB a
   * key). Our setting [100000]: upstream keeps every key until its topic or group is deleted.
   */
  maxStatsItemsPerSet: number;
  /**
   * Longest one call of a named filter may run, in ms: a call still running then is stopped, its
   * message does not match, and a warning names the filter. Each guarded call costs tens of
   * microseconds (Node's vm watchdog); 0 runs filters unguarded, as fast as a function call, and a
   * filter that loops then hangs the broker. Our setting [100]: upstream has no named filters.
   */
  namedFilterTimeoutMillis: number;
  /**
   * Deadline breaches after which a named filter is disabled until restart (it is no longer called
   * and matches nothing, logged as an error); 0 never disables it. Our setting [3].
   */
  namedFilterMaxTimeouts: number;
  /**
   * Largest body, in bytes, of a request whose code carries no message (heartbeats, lock and unlock
   * batches, configuration bodies...): a larger one is refused with MESSAGE_ILLEGAL before it is
   * decoded, so one huge JSON body cannot stall the broker. Sends keep the frame limit (16 MiB).
   * Our setting [1048576]: upstream has only the frame limit. Per-code exceptions: the remoting
   * setting requestBodyMaxSizeByCode (programmatic only). Read at start.
   */
  requestBodyMaxSize: number;
  /** Interface to listen on; undefined = every interface, as upstream. Not read from files. */
  listenHost: string | undefined;
  /** ms between scans for clients without heartbeat (ClientHousekeepingService: 10 s). */
  clientHousekeepingInterval: number;
  /** ms without heartbeat after which a client channel is dropped (Producer/ConsumerManager: 120 s). */
  channelExpiredTimeout: number;
  /** ms before the first periodic registration (BrokerController.start: 10 s). */
  registerNameServerDelay: number;
  /** ms before the first periodic persist of consumer offsets (BrokerController.initialize: 10 s). */
  flushConsumerOffsetDelay: number;
  /** ms an unregistration waits for each name server (BrokerOuterAPI.unregisterBroker: 3 s). */
  unregisterBrokerTimeoutMills: number;
  /** ms between re-checks of held pulls with long polling on (PullRequestHoldService: 5 s). */
  longPollingCheckInterval: number;
  /**
   * BrokerConfig.rocketmqHome: where plain ACL looks for `conf/plain_acl.yml` and `conf/acl/`.
   * Defaults to env ROCKETMQ_HOME (upstream: -Drocketmq.home.dir, then ROCKETMQ_HOME).
   */
  rocketmqHome: string | undefined;
  /**
   * The default plain ACL file, relative to rocketmqHome unless absolute [conf/plain_acl.yml]
   * (upstream's -Drocketmq.acl.plain.file). Our key; never changeable remotely.
   */
  aclPlainFile: string;
  /** ms between looks at the ACL files for changes [5000] (upstream's AclFileWatchService). Our key. */
  aclFileWatchInterval: number;
  /**
   * The broker's own ACL account, JSON `{"accessKey":"...","secretKey":"..."}` (5.x AuthConfig's key):
   * the broker signs its name-server requests with it, for a name server with ACL on. Never reported
   * by GET_BROKER_CONFIG, never changeable remotely.
   */
  innerClientAuthenticationCredentials: string | undefined;
}

/** Settings set in code only. */
type CodeOnlyKey =
  | 'listenHost'
  | 'clientHousekeepingInterval'
  | 'channelExpiredTimeout'
  | 'registerNameServerDelay'
  | 'flushConsumerOffsetDelay'
  | 'unregisterBrokerTimeoutMills'
  | 'longPollingCheckInterval';

export type BrokerConfigFileKey = Exclude<keyof BrokerConfig, CodeOnlyKey>;

const b = ownedBy('BrokerConfig');
const ns = ownedBy('NettyServerConfig');
const nc = ownedBy('NettyClientConfig');
const ms = ownedBy('MessageStoreConfig');

/** Every key broker.conf may set that rocketmq-ts reads, with how it parses. */
export const BROKER_CONFIG_KEYS: { readonly [K in BrokerConfigFileKey]: ConfigKeySpec } = {
  namesrvAddr: b(OPT_STR),
  brokerIP1: b(STR),
  brokerIP2: b(STR),
  brokerName: b(STR),
  brokerClusterName: b(STR),
  brokerId: b(LONG),
  brokerPermission: b(INT),
  defaultTopicQueueNums: b(INT),
  autoCreateTopicEnable: b(BOOL),
  clusterTopicEnable: b(BOOL),
  brokerTopicEnable: b(BOOL),
  autoCreateSubscriptionGroup: b(BOOL),
  msgTraceTopicName: b(STR),
  traceTopicEnable: b(BOOL),
  flushConsumerOffsetInterval: b(INT),
  flushConsumerOffsetHistoryInterval: b(INT),
  rejectTransactionMessage: b(BOOL),
  longPollingEnable: b(BOOL),
  shortPollingTimeMills: b(LONG),
  notifyConsumerIdsChangedEnable: b(BOOL),
  regionId: b(STR),
  registerBrokerTimeoutMills: b(INT),
  slaveReadEnable: b(BOOL),
  traceOn: b(BOOL),
  enablePropertyFilter: b(BOOL),
  filterSupportRetry: b(BOOL),
  compressedRegister: b(BOOL),
  forceRegister: b(BOOL),
  registerNameServerPeriod: b(INT),
  transactionTimeOut: b(LONG),
  transactionCheckMax: b(INT),
  transactionCheckInterval: b(LONG),
  filterDataCleanTimeSpan: b(LONG),
  aclEnable: b(BOOL),
  storeReplyMessageEnable: b(BOOL),
  autoDeleteUnusedStats: b(BOOL),
  listenPort: ns(INT),
  serverChannelMaxIdleTimeSeconds: ns(INT),
  serverSocketBacklog: ns(INT),
  connectTimeoutMillis: nc(INT),
  clientChannelMaxIdleTimeSeconds: nc(INT),
  clientCloseSocketIfTimeout: nc(BOOL),
  storePathRootDir: ms(STR),
  storePathCommitLog: ms(OPT_STR),
  mappedFileSizeCommitLog: ms(INT),
  mappedFileSizeConsumeQueue: ms(INT),
  flushDiskType: ms({ type: 'enum', values: ['ASYNC_FLUSH', 'SYNC_FLUSH'] }),
  brokerRole: ms({ type: 'enum', values: ['ASYNC_MASTER', 'SYNC_MASTER', 'SLAVE'] }),
  flushIntervalCommitLog: ms(INT),
  flushCommitLogLeastPages: ms(INT),
  flushCommitLogThoroughInterval: ms(INT),
  syncFlushTimeout: ms(INT),
  flushIntervalConsumeQueue: ms(INT),
  flushConsumeQueueLeastPages: ms(INT),
  flushConsumeQueueThoroughInterval: ms(INT),
  maxMessageSize: ms(INT),
  fileReservedTime: ms(INT),
  deleteWhen: ms(STR),
  diskMaxUsedSpaceRatio: ms(INT),
  maxHashSlotNum: ms(INT),
  maxIndexNum: ms(INT),
  messageIndexEnable: ms(BOOL),
  maxTransferCountOnMessageInMemory: ms(INT),
  maxTransferBytesOnMessageInMemory: ms(INT),
  maxTransferCountOnMessageInDisk: ms(INT),
  maxTransferBytesOnMessageInDisk: ms(INT),
  accessMessageInMemoryMaxRatio: ms(INT),
  maxMsgsNumBatch: ms(INT),
  osPageCacheBusyTimeOutMills: ms(LONG),
  messageDelayLevel: ms(STR),
  flushDelayOffsetInterval: ms(LONG),
  ...HA_CONFIG_KEYS,
  defaultQueryMaxNum: ms(INT),
  checkCRCOnRecover: ms(BOOL),
  cleanResourceInterval: ms(INT),
  offsetCheckInSlave: ms(BOOL),
  allowMidLogTruncation: { kind: BOOL, owner: 'rocketmq-ts' },
  commitLogTailCacheBytes: { kind: INT, owner: 'rocketmq-ts' },
  pullReadCacheBytes: { kind: INT, owner: 'rocketmq-ts' },
  filterExpressionMaxLength: { kind: INT, owner: 'rocketmq-ts' },
  filterExpressionMaxDepth: { kind: INT, owner: 'rocketmq-ts' },
  namedFilterModule: { kind: STR, owner: 'rocketmq-ts' },
  filterExpressionCacheSize: { kind: INT, owner: 'rocketmq-ts' },
  maxStatsItemsPerSet: { kind: INT, owner: 'rocketmq-ts' },
  namedFilterTimeoutMillis: { kind: INT, owner: 'rocketmq-ts' },
  namedFilterMaxTimeouts: { kind: INT, owner: 'rocketmq-ts' },
  requestBodyMaxSize: { kind: INT, owner: 'rocketmq-ts' },
  autoCreateTopicMaxCount: { kind: INT, owner: 'rocketmq-ts' },
  registerChangedTopicsDelay: { kind: INT, owner: 'rocketmq-ts' },
  ...HTTP_CONFIG_KEYS,
  ...TIMER_CONFIG_KEYS,
  ...POP_REVIVE_CONFIG_KEYS,
  ...ASSIGNMENT_CONFIG_KEYS,
  ...POP_CONFIG_KEYS,
  ...REMOTING_CONFIG_KEYS,
  rocketmqHome: b(OPT_STR),
  aclPlainFile: { kind: STR, owner: 'rocketmq-ts' },
  aclFileWatchInterval: { kind: INT, owner: 'rocketmq-ts' },
  innerClientAuthenticationCredentials: { kind: OPT_STR, owner: 'rocketmq-ts' },
};

/** Keys whose values are secrets: left out of GET_BROKER_CONFIG's answer. */
export const SECRET_BROKER_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'innerClientAuthenticationCredentials',
]);

/** Keys older releases accepted under another name, for a helpful warning. */
const RENAMED_KEYS: ReadonlyMap<string, string> = new Map([
  ['mapedFileSizeCommitLog', 'mappedFileSizeCommitLog'],
  ['mapedFileSizeConsumeQueue', 'mappedFileSizeConsumeQueue'],
]);

/** Where the environment-dependent defaults come from (tests pass fixed values). */
export interface BrokerConfigEnvironment {
  readonly hostName: string;
  readonly localAddress: string;
  readonly homeDir: string;
  /** Environment variable NAMESRV_ADDR. */
  readonly namesrvAddr: string | undefined;
  /** Environment variable ROCKETMQ_HOME. */
  readonly rocketmqHome?: string | undefined;
}

export function systemEnvironment(): BrokerConfigEnvironment {
  let name: string;
  try {
    name = hostname();
  } catch {
    name = 'DEFAULT_BROKER';
  }
  const env = process.env.NAMESRV_ADDR;
  const home = process.env.ROCKETMQ_HOME;
  return {
    rocketmqHome: home === undefined || home === '' ? undefined : home,
    hostName: name === '' ? 'DEFAULT_BROKER' : name,
    localAddress: localAddress(),
    homeDir: homedir(),
    namesrvAddr: env === undefined || env === '' ? undefined : env,
  };
}

const STORE = DEFAULT_MESSAGE_STORE_CONFIG;

/** Ceilings of the filter expression settings (see filterExpressionMaxLength / MaxDepth). */
export const MAX_FILTER_EXPRESSION_LENGTH = 1 << 20;
export const MAX_FILTER_EXPRESSION_DEPTH = 256;

/** Defaults that do not depend on the machine. */
export const DEFAULT_BROKER_CONFIG: Readonly<
  Omit<
    BrokerConfig,
    'namesrvAddr' | 'brokerIP1' | 'brokerIP2' | 'brokerName' | 'storePathRootDir' | 'rocketmqHome'
  >
> = Object.freeze({
  ...STORE,
  brokerClusterName: 'DefaultCluster',
  brokerId: 0,
  brokerPermission: 6,
  defaultTopicQueueNums: 8,
  autoCreateTopicEnable: true,
  clusterTopicEnable: true,
  brokerTopicEnable: true,
  autoCreateSubscriptionGroup: true,
  msgTraceTopicName: 'RMQ_SYS_TRACE_TOPIC',
  traceTopicEnable: false,
  flushConsumerOffsetInterval: 5000,
  flushConsumerOffsetHistoryInterval: 60_000,
  rejectTransactionMessage: false,
  longPollingEnable: true,
  shortPollingTimeMills: 1000,
  notifyConsumerIdsChangedEnable: true,
  regionId: 'DefaultRegion',
  registerBrokerTimeoutMills: 6000,
  slaveReadEnable: false,
  traceOn: true,
  enablePropertyFilter: false,
  filterSupportRetry: false,
  compressedRegister: false,
  forceRegister: true,
  registerNameServerPeriod: 30_000,
  transactionTimeOut: 6000,
  transactionCheckMax: 15,
  transactionCheckInterval: 60_000,
  filterDataCleanTimeSpan: 24 * 3600 * 1000,
  aclEnable: false,
  storeReplyMessageEnable: true,
  autoDeleteUnusedStats: false,
  // BrokerStartup sets 10911 before reading the file (NettyServerConfig's own default is 8888).
  listenPort: 10911,
  serverChannelMaxIdleTimeSeconds: 120,
  serverSocketBacklog: 1024,
  connectTimeoutMillis: 3000,
  clientChannelMaxIdleTimeSeconds: 120,
  clientCloseSocketIfTimeout: true,
  storePathCommitLog: undefined,
  brokerRole: 'ASYNC_MASTER',
  messageDelayLevel: '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h',
  flushDelayOffsetInterval: 10_000,
  ...DEFAULT_HA_CONFIG,
  defaultQueryMaxNum: 32,
  checkCRCOnRecover: true,
  cleanResourceInterval: 10_000,
  offsetCheckInSlave: false,
  listenHost: undefined,
  clientHousekeepingInterval: 10_000,
  channelExpiredTimeout: 120_000,
  registerNameServerDelay: 10_000,
  flushConsumerOffsetDelay: 10_000,
  unregisterBrokerTimeoutMills: 3000,
  longPollingCheckInterval: 5000,
  filterExpressionMaxLength: DEFAULT_SQL_MAX_LENGTH,
  filterExpressionMaxDepth: DEFAULT_SQL_MAX_DEPTH,
  namedFilterModule: '',
  filterExpressionCacheSize: DEFAULT_FILTER_CACHE_SIZE,
  maxStatsItemsPerSet: DEFAULT_MAX_STATS_ITEMS_PER_SET,
  namedFilterTimeoutMillis: DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS,
  namedFilterMaxTimeouts: DEFAULT_NAMED_FILTER_MAX_TIMEOUTS,
  requestBodyMaxSize: DEFAULT_REQUEST_BODY_MAX_SIZE,
  autoCreateTopicMaxCount: 5000,
  registerChangedTopicsDelay: 0,
  ...DEFAULT_HTTP_CONFIG,
  ...DEFAULT_TIMER_CONFIG,
  ...DEFAULT_POP_REVIVE_CONFIG,
  ...DEFAULT_ASSIGNMENT_CONFIG,
  ...DEFAULT_POP_CONFIG,
  ...DEFAULT_REMOTING_CONFIG,
  aclPlainFile: 'conf/plain_acl.yml',
  aclFileWatchInterval: 5000,
  innerClientAuthenticationCredentials: undefined,
});

/** Every default, the machine-dependent ones from `env`. */
export function defaultBrokerConfig(env: BrokerConfigEnvironment = systemEnvironment()): BrokerConfig {
  return {
    ...DEFAULT_BROKER_CONFIG,
    namesrvAddr: env.namesrvAddr,
    brokerIP1: env.localAddress,
    brokerIP2: env.localAddress,
    brokerName: env.hostName,
    storePathRootDir: join(env.homeDir, 'store'),
    rocketmqHome: env.rocketmqHome,
  };
}

function isHostPort(addr: string): boolean {
  const colon = addr.lastIndexOf(':');
  if (colon <= 0) return false;
  const port = addr.slice(colon + 1);
  return /^\d{1,5}$/.test(port) && Number(port) <= 65535;
}

/** The name server addresses of `namesrvAddr` (`;`-separated, blanks skipped). */
export function namesrvAddressList(namesrvAddr: string | undefined): string[] {
  if (namesrvAddr === undefined) return [];
  return namesrvAddr
    .split(';')
    .map((a) => a.trim())
    .filter((a) => a !== '');
}

/** A name a topic and a store directory will be made of: no path separators, not `.`/`..`. */
function checkNameForPaths(what: string, name: string, errors: string[]): void {
  if (name.trim() === '') errors.push(`${what} must not be blank`);
  else if (/[/\\\0]/.test(name) || name === '.' || name === '..') {
    errors.push(`${what} ${describeValue(name)} must not contain '/', '\\' or NUL, nor be '.' or '..'`);
  }
}

/**
 * Checks a complete config; throws one ValidationError listing every problem. Applies what
 * BrokerStartup enforces: a master's brokerId is 0, a slave's must be > 0.
 */
export function validateBrokerConfig(c: BrokerConfig): BrokerConfig {
  const errors: string[] = [];
  if (
    !Number.isInteger(c.listenPort) ||
    !(c.listenPort === 0 || (c.listenPort >= 3 && c.listenPort <= 65535))
  ) {
    errors.push(
      `listenPort must be 0 (any free port) or 3..65535 (the VIP channel listens on listenPort - 2), got ${c.listenPort}`,
    );
  }
  checkHaListenPort(c, errors);
  checkHaAuth(c, errors);
  for (const addr of namesrvAddressList(c.namesrvAddr)) {
    if (!isHostPort(addr)) {
      errors.push(
        `The Name Server Address[${c.namesrvAddr}] illegal, please set it as follows, "127.0.0.1:9876;192.168.0.1:9876"`,
      );
      break;
    }
  }
  checkNameForPaths('brokerName', c.brokerName, errors);
  checkNameForPaths('brokerClusterName', c.brokerClusterName, errors);
  if (c.storePathRootDir.trim() === '') errors.push('storePathRootDir must not be blank');
  checkHttpConfig(c, errors);
  checkTimerConfig(c, errors);
  checkPopReviveConfig(c, errors);
  checkPopConfig(c, errors);
  checkRemotingConfig(c, errors);
  if (c.brokerRole === 'SLAVE' && c.brokerId <= 0) errors.push("Slave's brokerId must be > 0");
  const positive: Array<[string, number]> = [
    ['flushConsumerOffsetInterval', c.flushConsumerOffsetInterval],
    ['registerBrokerTimeoutMills', c.registerBrokerTimeoutMills],
    ['maxMessageSize', c.maxMessageSize],
    ['clientHousekeepingInterval', c.clientHousekeepingInterval],
    ['channelExpiredTimeout', c.channelExpiredTimeout],
    ['unregisterBrokerTimeoutMills', c.unregisterBrokerTimeoutMills],
    ['mappedFileSizeCommitLog', c.mappedFileSizeCommitLog],
    ['mappedFileSizeConsumeQueue', c.mappedFileSizeConsumeQueue],
    ['transactionCheckInterval', c.transactionCheckInterval],
    ['maxMsgsNumBatch', c.maxMsgsNumBatch],
    ['osPageCacheBusyTimeOutMills', c.osPageCacheBusyTimeOutMills],
    ['requestBodyMaxSize', c.requestBodyMaxSize],
    ['maxStatsItemsPerSet', c.maxStatsItemsPerSet],
    ['aclFileWatchInterval', c.aclFileWatchInterval],
  ];
  checkPositive(positive, errors);
  checkHaTransfer(c, errors);
  const nonNegative: Array<[string, number]> = [
    ['defaultTopicQueueNums', c.defaultTopicQueueNums],
    ['autoCreateTopicMaxCount', c.autoCreateTopicMaxCount],
    ['registerChangedTopicsDelay', c.registerChangedTopicsDelay],
    ['registerNameServerDelay', c.registerNameServerDelay],
    ['flushConsumerOffsetDelay', c.flushConsumerOffsetDelay],
    ['serverChannelMaxIdleTimeSeconds', c.serverChannelMaxIdleTimeSeconds],
    ['clientChannelMaxIdleTimeSeconds', c.clientChannelMaxIdleTimeSeconds],
    ['connectTimeoutMillis', c.connectTimeoutMillis],
    ['transactionTimeOut', c.transactionTimeOut],
    ['filterDataCleanTimeSpan', c.filterDataCleanTimeSpan],
    ['namedFilterTimeoutMillis', c.namedFilterTimeoutMillis],
    ['namedFilterMaxTimeouts', c.namedFilterMaxTimeouts],
    ['filterExpressionCacheSize', c.filterExpressionCacheSize],
  ];
  for (const [name, v] of nonNegative) {
    if (!Number.isFinite(v) || v < 0) errors.push(`${name} must be >= 0, got ${v}`);
  }
  const bounded: Array<[string, number, number]> = [
    ['filterExpressionMaxLength', c.filterExpressionMaxLength, MAX_FILTER_EXPRESSION_LENGTH],
    ['filterExpressionMaxDepth', c.filterExpressionMaxDepth, MAX_FILTER_EXPRESSION_DEPTH],
  ];
  for (const [name, v, max] of bounded) {
    if (!Number.isInteger(v) || v < 1 || v > max) errors.push(`${name} must be 1..${max}, got ${v}`);
  }
  if (errors.length > 0) throw new ValidationError(`invalid broker config: ${errors.join('; ')}`);
  const isMaster = c.brokerRole !== 'SLAVE';
  return isMaster && c.brokerId !== 0 ? { ...c, brokerId: 0 } : c;
}

/** Settings to apply over others; an undefined value changes nothing. */
export type BrokerConfigOverrides = { [K in keyof BrokerConfig]?: BrokerConfig[K] | undefined };

/**
 * Defaults, then `overrides`, validated: the programmatic way to configure a broker. haListenPort
 * is always listenPort + 1, as BrokerStartup forces it.
 */
export function brokerConfig(
  overrides: BrokerConfigOverrides = {},
  env: BrokerConfigEnvironment = systemEnvironment(),
): BrokerConfig {
  const defined: Partial<BrokerConfig> = {};
  for (const [k, v] of Object.entries(overrides)) {
    if (v !== undefined) (defined as Record<string, unknown>)[k] = v;
  }
  const config = { ...defaultBrokerConfig(env), ...defined };
  config.haListenPort = haListenPortFor(config.listenPort);
  return validateBrokerConfig(config);
}

export interface LoadedBrokerConfig {
  config: BrokerConfig;
  /** Keys no 4.9.8 config class has (each logged as a warning). */
  unknownKeys: string[];
  /** Keys upstream accepts that rocketmq-ts does not use. */
  ignoredKeys: string[];
  /**
   * Every property of the file, as upstream's Configuration remembers them (GET_BROKER_CONFIG),
   * except the TLS key passwords.
   */
  properties: Map<string, string>;
  /** The file's `tls.*` keys (upstream's TLS system properties), for resolveTlsSystemConfig. */
  tls: Partial<TlsSystemConfig>;
}

export interface LoadBrokerConfigOptions {
  /** Names the source in messages (a file path). */
  source?: string;
  logger?: Logger;
  env?: BrokerConfigEnvironment;
  /** Applied after the file (command-line flags). */
  overrides?: BrokerConfigOverrides;
}

/**
 * Reads broker.conf text (Java properties). Throws ValidationError naming every key whose value does
 * not parse, or a RemotingCommandError for malformed properties syntax. As BrokerStartup does,
 * haListenPort becomes listenPort + 1 whatever the file says.
 */
export function loadBrokerConfig(
  propertiesText: string,
  options: LoadBrokerConfigOptions = {},
): LoadedBrokerConfig {
  const source = options.source ?? 'broker config';
  const properties = parseJavaProperties(propertiesText);
  const config: Record<string, unknown> = { ...defaultBrokerConfig(options.env ?? systemEnvironment()) };
  const unknownKeys: string[] = [];
  const ignoredKeys: string[] = [];
  const errors: string[] = [];
  const tls = parseTlsProperties(properties);
  errors.push(...tls.errors);
  for (const [key, text] of properties) {
    if (isTlsPropertyKey(key)) {
      if (isSecretTlsPropertyKey(key)) properties.delete(key);
      continue;
    }
    const spec = Object.hasOwn(BROKER_CONFIG_KEYS, key)
      ? BROKER_CONFIG_KEYS[key as BrokerConfigFileKey]
      : undefined;
    if (spec === undefined) {
      if (UPSTREAM_IGNORED_KEYS.has(key)) {
        ignoredKeys.push(key);
        options.logger?.info('broker config key not used by rocketmq-ts', { source, key });
      } else {
        unknownKeys.push(key);
        const renamed = RENAMED_KEYS.get(key);
        options.logger?.warn(
          renamed === undefined
            ? 'unknown broker config key ignored'
            : `unknown broker config key ignored (4.9.8 names it ${renamed})`,
          { source, key },
        );
      }
      continue;
    }
    const parsed = parseConfigValue(spec.kind, text);
    if ('error' in parsed) errors.push(`${key}: ${parsed.error}`);
    else config[key] = parsed.value;
  }
  if (errors.length > 0) throw new ValidationError(`${source}: ${errors.join('; ')}`);
  for (const [k, v] of Object.entries(options.overrides ?? {})) if (v !== undefined) config[k] = v;
  const typed = config as unknown as BrokerConfig;
  typed.haListenPort = haListenPortFor(typed.listenPort);
  return { config: validateBrokerConfig(typed), unknownKeys, ignoredKeys, properties, tls: tls.values };
}

/** The store's config from the broker's (same key names). */
export function toMessageStoreConfig(c: BrokerConfig): MessageStoreConfig {
  const out: Record<string, unknown> = { storePathRootDir: c.storePathRootDir };
  for (const key of Object.keys(DEFAULT_MESSAGE_STORE_CONFIG) as Array<
    keyof typeof DEFAULT_MESSAGE_STORE_CONFIG
  >) {
    out[key] = c[key];
  }
  return out as unknown as MessageStoreConfig;
}

/**
 * The configuration as GET_BROKER_CONFIG returns it: every file key with its current value (nulls
 * left out), then file properties no class holds (upstream's Configuration keeps those too).
 */
export function brokerConfigProperties(
  c: BrokerConfig,
  extra: ReadonlyMap<string, string> = new Map(),
): Array<[string, string]> {
  const out = new Map<string, string>();
  for (const key of Object.keys(BROKER_CONFIG_KEYS) as BrokerConfigFileKey[]) {
    if (SECRET_BROKER_CONFIG_KEYS.has(key)) continue;
    const text = formatConfigValue(c[key]);
    if (text !== undefined) out.set(key, text);
  }
  for (const [k, v] of extra) if (!out.has(k) && !SECRET_BROKER_CONFIG_KEYS.has(k)) out.set(k, v);
  return [...out];
}
