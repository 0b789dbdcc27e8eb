/**
 * Options every client shares (upstream `ClientConfig`), with upstream's names and defaults, and the
 * client id they give: `clientIP@instanceName[@unitName]`. Clients with equal ids share one
 * MQClientInstance (one connection per broker, one heartbeat carrying all their groups).
 */
import { type Clock, systemClock } from '../common/clock.js';
import { ValidationError } from '../common/errors.js';
import { adoptLogger, type Logger } from '../common/logger.js';
import type { RocketMQLogger } from '../common/logger-interface.js';
import { javaIsBlank } from '../common/message/java-lang.js';
import type { MessageExt } from '../common/message/message.js';
import { MessageQueue } from '../common/message/message-queue.js';
import { localAddress } from '../common/platform/local-address.js';
import type { SerializeType } from '../remoting/protocol/command.js';
import { type SessionCredentials, validateCredentials } from '../remoting/transport/acl-client-rpc-hook.js';
import { parseAddress } from '../remoting/transport/address.js';
import type { RPCHook } from '../remoting/transport/processor.js';
import type { RemotingClientSettings } from '../remoting/transport/settings.js';
import { type TlsClientOptions, tlsClientSettings } from '../remoting/transport/tls-settings.js';
import { withoutNamespace, wrapNamespace } from './namespace.js';

/** Upstream's placeholder instance name, replaced by `pid#nanotime` when a client starts. */
export const DEFAULT_INSTANCE_NAME = 'DEFAULT';

export interface ClientOptions {
  /**
   * Name servers, `host:port;host:port` as upstream writes them, or a list. Default: the
   * `NAMESRV_ADDR` environment variable.
   */
  namesrvAddr?: string | readonly string[] | undefined;
  /** This host's address in the client id. Default: the address upstream's getLocalAddress picks. */
  clientIP?: string | undefined;
  /**
   * Second part of the client id. Default `DEFAULT`, which start() turns into `<pid>#<nanotime>` as
   * upstream does, so each client gets an instance of its own; give equal names to share one.
   */
  instanceName?: string | undefined;
  /** Third part of the client id when set. */
  unitName?: string | undefined;
  unitMode?: boolean | undefined;
  /** Prefix of topics and groups (`namespace%Topic`). */
  namespace?: string | undefined;
  /** Route refresh period of every topic in use, ms [30000]. */
  pollNameServerInterval?: number | undefined;
  /** Heartbeat period to every broker, ms [30000]. */
  heartbeatBrokerInterval?: number | undefined;
  /** Consumer offset persist period, ms [5000]. */
  persistConsumerOffsetInterval?: number | undefined;
  /** Pause before pulling again after a failed pull, ms [1000]. */
  pullTimeDelayMillsWhenException?: number | undefined;
  /** Consumers rebalance at least this often (`rocketmq.client.rebalance.waitInterval`), ms [20000]. */
  rebalanceWaitInterval?: number | undefined;
  /** Send through the broker's VIP channel (its port - 2) [false]. */
  vipChannelEnabled?: boolean | undefined;
  /** Timeout of the client's own calls to name servers and brokers (routes, heartbeats), ms [3000]. */
  mqClientApiTimeout?: number | undefined;
  /** 5.x heartbeat V2: leave out unchanged subscriptions when the broker supports it [false]. */
  useHeartbeatV2?: boolean | undefined;
  /**
   * Header serialization of the client's requests (`rocketmq.serialize.type`): `JSON` or the binary
   * `ROCKETMQ`, which both ends decode faster. Default: the `ROCKETMQ_SERIALIZE_TYPE` environment
   * variable, else `JSON`, as upstream.
   */
  serializeType?: SerializeTypeName | undefined;
  /** Transport settings (connect timeout, idle time, frame size...). */
  remoting?: Partial<RemotingClientSettings> | undefined;
  /**
   * Connect to name servers and brokers with TLS (upstream's `useTLS`). `true` trusts any server
   * certificate, as upstream's client does by default; `{ ca }` verifies the server's chain;
   * `{ cert, key }` sends a client certificate. Host names are checked only with `verifyHostname`.
   */
  tls?: boolean | TlsClientOptions | undefined;
  /** Runs around every request (tracing, custom signing). */
  rpcHook?: RPCHook | undefined;
  /**
   * An ACL account: every request is signed as upstream's AclClientRPCHook signs it (after `rpcHook`
   * ran). Clients sharing a client id must use the same credentials.
   */
  credentials?: SessionCredentials | undefined;
  /**
   * Time source of every timer the client runs; tests pass a ManualClock. The default's timers do not
   * keep the process alive (docs/producer.md, "What keeps a process alive").
   */
  clock?: Clock | undefined;
  /** Where the client logs: any pino-style logger, or none for JSON lines on stderr at `RMQ_LOG_LEVEL`. */
  logger?: Logger | RocketMQLogger | undefined;
}

/** The options after defaults, as one client instance runs with them. */
export interface ClientConfig {
  readonly namesrvAddrList: readonly string[];
  readonly clientIP: string;
  readonly instanceName: string;
  readonly unitName: string | undefined;
  readonly unitMode: boolean;
  readonly namespace: string | undefined;
  readonly pollNameServerInterval: number;
  readonly heartbeatBrokerInterval: number;
  readonly persistConsumerOffsetInterval: number;
  readonly pullTimeDelayMillsWhenException: number;
  readonly rebalanceWaitInterval: number;
  readonly vipChannelEnabled: boolean;
  readonly mqClientApiTimeout: number;
  readonly useHeartbeatV2: boolean;
  readonly serializeType: SerializeTypeName;
  readonly remoting: Partial<RemotingClientSettings>;
  readonly rpcHook: RPCHook | undefined;
  readonly credentials: SessionCredentials | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}

export const DEFAULT_CLIENT_CONFIG = Object.freeze({
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
  persistConsumerOffsetInterval: 5_000,
  pullTimeDelayMillsWhenException: 1_000,
  rebalanceWaitInterval: 20_000,
  vipChannelEnabled: false,
  mqClientApiTimeout: 3_000,
  unitMode: false,
  useHeartbeatV2: false,
  serializeType: 'JSON',
});

export type SerializeTypeName = keyof typeof SerializeType;

/** The option, else `ROCKETMQ_SERIALIZE_TYPE`, else JSON; a name upstream does not know is refused. */
function serializeTypeOption(value: string | undefined): SerializeTypeName {
  const fromEnv = process.env.ROCKETMQ_SERIALIZE_TYPE?.trim();
  const name =
    value ?? (fromEnv === undefined || fromEnv === '' ? DEFAULT_CLIENT_CONFIG.serializeType : fromEnv);
  if (name !== 'JSON' && name !== 'ROCKETMQ') {
    const from = value === undefined ? 'ROCKETMQ_SERIALIZE_TYPE' : 'serializeType';
    throw new ValidationError(`${from} must be JSON or ROCKETMQ, got ${JSON.stringify(name)}`, -1);
  }
  return name;
}

/**
 * Splits upstream's `namesrvAddr` syntax (`a:9876;b:9876`, blanks ignored) and checks every entry is
 * host:port, so a typo fails at creation instead of at the first send.
 */
export function parseNamesrvAddr(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const parts = typeof value === 'string' ? value.split(';') : [...value];
  const list = parts.map((p) => p.trim()).filter((p) => p.length > 0);
  for (const addr of list) {
    let host: string;
    try {
      host = parseAddress(addr).host;
    } catch (error) {
      throw new ValidationError(`namesrvAddr: ${(error as Error).message}`, -1);
    }
    // parseAddress takes any host text; a comma or space here is a list written the wrong way.
    if (!HOST_PATTERN.test(host)) {
      throw new ValidationError(
        `namesrvAddr: address "${addr}" has a bad host (separate name servers with ';')`,
        -1,
      );
    }
  }
  return list;
}

/** Host names, IPv4 and IPv6 (with a zone) addresses. */
const HOST_PATTERN = /^[A-Za-z0-9._%:-]+$/;

function optionalString(name: string, value: unknown): string | undefined {
  if (value !== undefined && typeof value !== 'string') {
    throw new ValidationError(`${name} must be a string, got ${typeof value}`, -1);
  }
  return value;
}

function optionalBoolean(name: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ValidationError(`${name} must be true or false, got ${typeof value}`, -1);
  }
  return value;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ValidationError(`${name} must be a number > 0, got ${value}`, -1);
  }
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new ValidationError(`${name} must be a number >= 0, got ${value}`, -1);
  }
  return value;
}

/** `changeInstanceNameToPID`: DEFAULT becomes `<pid>#<nanotime>`, unique per client. */
export function instanceNameFor(instanceName: string | undefined): string {
  const name = instanceName ?? DEFAULT_INSTANCE_NAME;
  return name === DEFAULT_INSTANCE_NAME ? `${process.pid}#${process.hrtime.bigint()}` : name;
}

function withTls(
  remoting: Partial<RemotingClientSettings>,
  tls: boolean | TlsClientOptions | undefined,
): Partial<RemotingClientSettings> {
  let settings: ReturnType<typeof tlsClientSettings>;
  try {
    settings = tlsClientSettings(tls);
  } catch (error) {
    // A client's own option errors carry upstream's client-side code, as the others here do.
    throw new ValidationError((error as Error).message, -1);
  }
  return settings === undefined ? remoting : { ...remoting, tls: settings };
}

/** Applies defaults and checks every value; `changeInstanceName` is false for the client-inner producer. */
export function resolveClientConfig(options: ClientOptions, changeInstanceName = true): ClientConfig {
  const d = DEFAULT_CLIENT_CONFIG;
  const fromEnv = process.env.NAMESRV_ADDR;
  const namesrv = options.namesrvAddr ?? (fromEnv === '' ? undefined : fromEnv);
  const givenInstanceName = optionalString('instanceName', options.instanceName);
  const instanceName = changeInstanceName
    ? instanceNameFor(givenInstanceName)
    : (givenInstanceName ?? DEFAULT_INSTANCE_NAME);
  if (instanceName.length === 0) throw new ValidationError('instanceName must not be empty', -1);
  const clientIP = optionalString('clientIP', options.clientIP) ?? localAddress();
  if (clientIP.length === 0) throw new ValidationError('clientIP must not be empty', -1);
  const unitName = optionalString('unitName', options.unitName);
  const namespace = optionalString('namespace', options.namespace);
  return {
    namesrvAddrList: parseNamesrvAddr(namesrv),
    clientIP,
    instanceName,
    unitName: unitName === '' ? undefined : unitName,
    unitMode: optionalBoolean('unitMode', options.unitMode) ?? d.unitMode,
    namespace: namespace === '' ? undefined : namespace,
    pollNameServerInterval: positive(
      'pollNameServerInterval',
      options.pollNameServerInterval ?? d.pollNameServerInterval,
    ),
    heartbeatBrokerInterval: positive(
      'heartbeatBrokerInterval',
      options.heartbeatBrokerInterval ?? d.heartbeatBrokerInterval,
    ),
    persistConsumerOffsetInterval: positive(
      'persistConsumerOffsetInterval',
      options.persistConsumerOffsetInterval ?? d.persistConsumerOffsetInterval,
    ),
    pullTimeDelayMillsWhenException: nonNegative(
      'pullTimeDelayMillsWhenException',
      options.pullTimeDelayMillsWhenException ?? d.pullTimeDelayMillsWhenException,
    ),
    rebalanceWaitInterval: positive(
      'rebalanceWaitInterval',
      options.rebalanceWaitInterval ?? d.rebalanceWaitInterval,
    ),
    vipChannelEnabled: optionalBoolean('vipChannelEnabled', options.vipChannelEnabled) ?? d.vipChannelEnabled,
    mqClientApiTimeout: positive('mqClientApiTimeout', options.mqClientApiTimeout ?? d.mqClientApiTimeout),
    useHeartbeatV2: optionalBoolean('useHeartbeatV2', options.useHeartbeatV2) ?? d.useHeartbeatV2,
    serializeType: serializeTypeOption(optionalString('serializeType', options.serializeType)),
    remoting: withTls(options.remoting ?? {}, options.tls),
    rpcHook: options.rpcHook,
    credentials: options.credentials === undefined ? undefined : validateCredentials(options.credentials),
    clock: options.clock ?? systemClock,
    logger: adoptLogger(options.logger, 'client'),
  };
}

/** `buildMQClientId`: `clientIP@instanceName`, then `@unitName` when one is set and not blank. */
export function buildMQClientId(
  config: Pick<ClientConfig, 'clientIP' | 'instanceName' | 'unitName'>,
): string {
  const id = `${config.clientIP}@${config.instanceName}`;
  return config.unitName === undefined || javaIsBlank(config.unitName) ? id : `${id}@${config.unitName}`;
}

export function withNamespaceOf(config: Pick<ClientConfig, 'namespace'>, resource: string): string {
  return wrapNamespace(config.namespace, resource);
}

export function withoutNamespaceOf(config: Pick<ClientConfig, 'namespace'>, resource: string): string {
  return withoutNamespace(resource, config.namespace);
}

/**
 * `queueWithNamespace`: `mq` as the brokers name it. Always a new queue (upstream returns the same
 * one without a namespace): the caller's object is never shared with the consumer's tables.
 */
export function queueWithNamespaceOf(
  config: Pick<ClientConfig, 'namespace'>,
  mq: MessageQueue,
): MessageQueue {
  return new MessageQueue(withNamespaceOf(config, mq.topic), mq.brokerName, mq.queueId);
}

/** A queue of the brokers as the application names it (its topic without this client's namespace). */
export function queueWithoutNamespaceOf(
  config: Pick<ClientConfig, 'namespace'>,
  mq: MessageQueue,
): MessageQueue {
  return new MessageQueue(withoutNamespaceOf(config, mq.topic), mq.brokerName, mq.queueId);
}

/** The pull consumers' `resetTopic`: pulled messages get their topics without the namespace, in place. */
export function resetTopicOf(config: Pick<ClientConfig, 'namespace'>, msgs: MessageExt[]): MessageExt[] {
  if (config.namespace !== undefined) for (const m of msgs) m.topic = withoutNamespaceOf(config, m.topic);
  return msgs;
}
