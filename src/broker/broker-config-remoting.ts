/**
 * broker.conf keys of the broker's per-connection limits (issue 26), ours: upstream's
 * NettyServerConfig has none of them. They reach both of the broker's remoting servers (the main
 * port and the VIP channel) as the RemotingServerSettings of the same name; their meaning and
 * defaults are documented there and in docs/broker-limits.md.
 */
import { DEFAULT_REMOTING_SERVER_SETTINGS } from '../remoting/transport/settings.js';
import { type ConfigKeySpec, checkPositive, INT, LONG, ownedBy } from './broker-config-keys.js';

export interface BrokerRemotingConfig {
  /** Requests of one connection in processing before its reading stops [256]. */
  serverMaxRequestsInFlight: number;
  /** Bytes waiting to be written on one connection before it is closed [64 MiB]. */
  serverWriteBufferHardLimit: number;
  /** Connections open at once per server (main port, VIP channel each) [10000]. */
  serverMaxConnections: number;
  /** ms from a frame's first byte to its last before the connection is closed; 0 never [30 s]. */
  serverFrameDeadlineMillis: number;
  /** Largest request header, bytes [4 MiB]. */
  serverHeaderMaxSize: number;
  /** Most extFields entries of a request header [1024]. */
  serverHeaderMaxExtFields: number;
}

const ours = ownedBy('rocketmq-ts');

export const REMOTING_CONFIG_KEYS: { readonly [K in keyof BrokerRemotingConfig]: ConfigKeySpec } = {
  serverMaxRequestsInFlight: ours(INT),
  serverWriteBufferHardLimit: ours(LONG),
  serverMaxConnections: ours(INT),
  serverFrameDeadlineMillis: ours(LONG),
  serverHeaderMaxSize: ours(INT),
  serverHeaderMaxExtFields: ours(INT),
};

const d = DEFAULT_REMOTING_SERVER_SETTINGS;

export const DEFAULT_REMOTING_CONFIG: Readonly<BrokerRemotingConfig> = Object.freeze({
  serverMaxRequestsInFlight: d.serverMaxRequestsInFlight,
  serverWriteBufferHardLimit: d.serverWriteBufferHardLimit,
  serverMaxConnections: d.serverMaxConnections,
  serverFrameDeadlineMillis: d.serverFrameDeadlineMillis,
  serverHeaderMaxSize: d.serverHeaderMaxSize,
  serverHeaderMaxExtFields: d.serverHeaderMaxExtFields,
});

export function checkRemotingConfig(c: BrokerRemotingConfig, errors: string[]): void {
  checkPositive(
    [
      ['serverMaxRequestsInFlight', c.serverMaxRequestsInFlight],
      ['serverWriteBufferHardLimit', c.serverWriteBufferHardLimit],
      ['serverMaxConnections', c.serverMaxConnections],
      ['serverHeaderMaxSize', c.serverHeaderMaxSize],
      ['serverHeaderMaxExtFields', c.serverHeaderMaxExtFields],
    ],
    errors,
  );
  const deadline = c.serverFrameDeadlineMillis;
  if (!Number.isFinite(deadline) || deadline < 0)
    errors.push(`serverFrameDeadlineMillis must be >= 0, got ${deadline}`);
}

/** The RemotingServerSettings these keys set. */
export function remotingServerLimits(c: BrokerRemotingConfig): BrokerRemotingConfig {
  return {
    serverMaxRequestsInFlight: c.serverMaxRequestsInFlight,
    serverWriteBufferHardLimit: c.serverWriteBufferHardLimit,
    serverMaxConnections: c.serverMaxConnections,
    serverFrameDeadlineMillis: c.serverFrameDeadlineMillis,
    serverHeaderMaxSize: c.serverHeaderMaxSize,
    serverHeaderMaxExtFields: c.serverHeaderMaxExtFields,
  };
}
