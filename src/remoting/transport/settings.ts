/**
 * Transport settings, one object per class, each with its upstream (4.9.8) default where upstream
 * has one. Tests pass shortened values; every omitted field takes the default.
 */
import { ValidationError } from '../../common/errors.js';
import { SerializeType } from '../protocol/command.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/frame.js';
import type { HeaderLimits } from '../protocol/header-limits.js';
import { DEFAULT_REQUEST_BODY_MAX_SIZE, DEFAULT_REQUEST_BODY_MAX_SIZE_BY_CODE } from './body-limits.js';
import {
  DEFAULT_TLS_SERVER_SETTINGS,
  type TlsClientSettings,
  type TlsServerSettings,
  tlsServerSettings,
} from './tls-settings.js';

/** What one Connection needs; the server and client derive it from their own settings. */
export interface ConnectionSettings {
  /** Largest frame accepted or sent, length prefix included (`com.rocketmq.remoting.frameMaxLength`). */
  maxFrameSize: number;
  /** Reading pauses while more than this many bytes wait to be written; Infinity never pauses. */
  writeBufferHighWaterMark: number;
  /** Reading resumes once the bytes waiting to be written fall to this. */
  writeBufferLowWaterMark: number;
  /** Close after this long with no reads or writes; 0 disables. */
  channelMaxIdleTimeSeconds: number;
  /** Requests this side may have waiting for a response on one connection. */
  maxPendingRequests: number;
  /** Timeout of an invoke that names none. */
  defaultInvokeTimeoutMs: number;
  /** Close the connection when an invoke times out (a silent peer is presumed dead). */
  closeOnInvokeTimeout: boolean;
  /** Reading stops while this many of the peer's requests are being processed; Infinity never. */
  maxRequestsInFlight: number;
  /** Close the connection once more than this many bytes wait to be written; Infinity never. */
  writeBufferHardLimit: number;
  /** Close the connection when a frame begun this long ago has not completed, ms; 0 never. */
  frameDeadlineMs: number;
  /** Bounds on a request's header, checked before it is parsed; undefined for none. */
  headerLimits: HeaderLimits | undefined;
}

export interface RemotingServerSettings {
  maxFrameSize: number;
  /**
   * Upstream leaves Netty's water marks at their defaults (64 KiB/32 KiB) and never stops reading;
   * we pause reading a connection whose peer does not read its responses, with more room so that
   * normal pull responses never trip it.
   */
  writeBufferHighWaterMark: number;
  writeBufferLowWaterMark: number;
  /** NettyServerConfig.serverChannelMaxIdleTimeSeconds. */
  serverChannelMaxIdleTimeSeconds: number;
  /** NettyServerConfig.serverSocketBacklog (`com.rocketmq.remoting.socket.backlog`). */
  serverSocketBacklog: number;
  /** Server-to-client requests waiting per connection. */
  maxPendingRequests: number;
  defaultInvokeTimeoutMs: number;
  /**
   * Largest body of a request whose code is not in requestBodyMaxSizeByCode, refused with
   * MESSAGE_ILLEGAL before any processor decodes it (see body-limits.ts). Our setting [1 MiB].
   */
  requestBodyMaxSize: number;
  /**
   * Per-code exceptions to requestBodyMaxSize; overrides are merged over the defaults, which give the
   * message-carrying codes and REGISTER_BROKER the frame limit.
   */
  requestBodyMaxSizeByCode: Readonly<Record<number, number>>;
  /**
   * Requests of one connection processed at once (handed to a processor, not yet answered; a pull
   * parked by long polling counts until it is parked): at this many the server stops reading the
   * connection until one is answered. Our setting [256]: upstream bounds only its thread pools' queues.
   */
  serverMaxRequestsInFlight: number;
  /**
   * Bytes waiting to be written on one connection past which it is closed, with one log line: a peer
   * that sends requests and does not read the answers. Reading stops at writeBufferHighWaterMark
   * long before; this bounds what requests already in processing add after that. Our setting
   * [64 MiB]; at least maxFrameSize.
   */
  serverWriteBufferHardLimit: number;
  /** Connections open at once; one more is closed as soon as it is accepted. Our setting [10000]. */
  serverMaxConnections: number;
  /**
   * ms a frame may take from its first byte to its last; past it the connection is closed, so a
   * frame sent a byte at a time, or held one byte short, holds its buffer no longer than this.
   * 0 disables. Time the server itself stops reading (write buffer full) does not count. Our
   * setting [30 s]: upstream has only the idle timeout, which a byte a second keeps from firing.
   */
  serverFrameDeadlineMillis: number;
  /**
   * Largest request header, bytes, checked before it is parsed; a larger one is refused with
   * MESSAGE_ILLEGAL (or the connection closed when its opaque cannot be read). Our setting [4 MiB];
   * the official 4.9 clients' largest is measured in docs/broker-limits.md.
   */
  serverHeaderMaxSize: number;
  /** Most extFields entries a request header may carry, counted before it is parsed. Ours [1024]. */
  serverHeaderMaxExtFields: number;
  /** A limit reached logs at most one line per limit per this interval, ms. Ours [1 s]. */
  serverLimitLogIntervalMillis: number;
  /** TLS on the listen port (upstream's TlsSystemConfig server keys); overrides merge over the defaults. */
  tls: Readonly<TlsServerSettings>;
}

export interface RemotingClientSettings {
  maxFrameSize: number;
  /** NettyClientConfig.connectTimeoutMillis (`com.rocketmq.remoting.client.connect.timeout`). */
  connectTimeoutMs: number;
  /** `com.rocketmq.remoting.client.channel.maxIdleTimeSeconds`. */
  clientChannelMaxIdleTimeSeconds: number;
  /** `com.rocketmq.remoting.client.closeSocketIfTimeout`. */
  clientCloseSocketIfTimeout: boolean;
  /** NettyClientConfig.clientAsyncSemaphoreValue, applied per connection. */
  maxPendingRequests: number;
  defaultInvokeTimeoutMs: number;
  /**
   * Header serialization of every request this client sends (`rocketmq.serialize.type`): the binary
   * ROCKETMQ form costs both ends less than JSON; responses to the broker's requests keep the
   * request's own form. Undefined: each request goes in the form it was created with.
   */
  serializeType: SerializeType | undefined;
  /** Connect with TLS (see tlsClientSettings); undefined connects in plaintext. */
  tls: TlsClientSettings | undefined;
}

export const DEFAULT_REMOTING_SERVER_SETTINGS: Readonly<RemotingServerSettings> = Object.freeze({
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  writeBufferHighWaterMark: 4 * 1024 * 1024,
  writeBufferLowWaterMark: 2 * 1024 * 1024,
  serverChannelMaxIdleTimeSeconds: 120,
  serverSocketBacklog: 1024,
  maxPendingRequests: 65535,
  defaultInvokeTimeoutMs: 3000,
  requestBodyMaxSize: DEFAULT_REQUEST_BODY_MAX_SIZE,
  requestBodyMaxSizeByCode: DEFAULT_REQUEST_BODY_MAX_SIZE_BY_CODE,
  serverMaxRequestsInFlight: 256,
  serverWriteBufferHardLimit: 64 * 1024 * 1024,
  serverMaxConnections: 10_000,
  serverFrameDeadlineMillis: 30_000,
  serverHeaderMaxSize: 4 * 1024 * 1024,
  serverHeaderMaxExtFields: 1024,
  serverLimitLogIntervalMillis: 1000,
  tls: DEFAULT_TLS_SERVER_SETTINGS,
});

export const DEFAULT_REMOTING_CLIENT_SETTINGS: Readonly<RemotingClientSettings> = Object.freeze({
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  connectTimeoutMs: 3000,
  clientChannelMaxIdleTimeSeconds: 120,
  clientCloseSocketIfTimeout: true,
  maxPendingRequests: 65535,
  defaultInvokeTimeoutMs: 3000,
  serializeType: undefined,
  tls: undefined,
});

function checkNonNegative(owner: string, values: Record<string, number | boolean>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'number' && (Number.isNaN(value) || value < 0)) {
      throw new ValidationError(`${owner}.${name} must be a number >= 0, got ${value}`);
    }
  }
}

/** Server settings given in code; `tls` may be partial, merged over the TLS defaults. */
export type RemotingServerOverrides = Partial<Omit<RemotingServerSettings, 'tls'>> & {
  tls?: Partial<TlsServerSettings> | undefined;
};

export function serverSettings(overrides: RemotingServerOverrides = {}): RemotingServerSettings {
  const s = {
    ...DEFAULT_REMOTING_SERVER_SETTINGS,
    ...overrides,
    requestBodyMaxSizeByCode: Object.freeze({
      ...DEFAULT_REMOTING_SERVER_SETTINGS.requestBodyMaxSizeByCode,
      ...overrides.requestBodyMaxSizeByCode,
    }),
    tls: Object.freeze(tlsServerSettings(overrides.tls)),
  };
  const { requestBodyMaxSizeByCode: byCode, tls: _tls, ...numbers } = s;
  checkNonNegative('RemotingServerSettings', numbers);
  for (const [code, limit] of Object.entries(byCode)) {
    if (!Number.isInteger(Number(code)) || typeof limit !== 'number' || !(limit >= 0)) {
      throw new ValidationError(
        `RemotingServerSettings.requestBodyMaxSizeByCode[${code}] must be a number >= 0, got ${limit}`,
      );
    }
  }
  if (s.writeBufferLowWaterMark > s.writeBufferHighWaterMark) {
    throw new ValidationError(
      'RemotingServerSettings.writeBufferLowWaterMark exceeds writeBufferHighWaterMark',
    );
  }
  if (s.serverWriteBufferHardLimit < Math.max(s.writeBufferHighWaterMark, s.maxFrameSize)) {
    throw new ValidationError(
      'RemotingServerSettings.serverWriteBufferHardLimit must be at least writeBufferHighWaterMark and maxFrameSize',
    );
  }
  if (s.serverMaxRequestsInFlight < 1 || s.serverMaxConnections < 1) {
    throw new ValidationError(
      'RemotingServerSettings.serverMaxRequestsInFlight and serverMaxConnections must be >= 1',
    );
  }
  return s;
}

export function clientSettings(overrides: Partial<RemotingClientSettings> = {}): RemotingClientSettings {
  const s = { ...DEFAULT_REMOTING_CLIENT_SETTINGS, ...overrides };
  const { serializeType: type, tls: _tls, ...numbers } = s;
  checkNonNegative('RemotingClientSettings', numbers);
  if (type !== undefined && type !== SerializeType.JSON && type !== SerializeType.ROCKETMQ) {
    throw new ValidationError(
      `RemotingClientSettings.serializeType must be 0 (JSON) or 1 (ROCKETMQ), got ${type}`,
    );
  }
  return s;
}

export function serverConnectionSettings(s: RemotingServerSettings): ConnectionSettings {
  return {
    maxFrameSize: s.maxFrameSize,
    writeBufferHighWaterMark: s.writeBufferHighWaterMark,
    writeBufferLowWaterMark: s.writeBufferLowWaterMark,
    channelMaxIdleTimeSeconds: s.serverChannelMaxIdleTimeSeconds,
    maxPendingRequests: s.maxPendingRequests,
    defaultInvokeTimeoutMs: s.defaultInvokeTimeoutMs,
    closeOnInvokeTimeout: false,
    maxRequestsInFlight: s.serverMaxRequestsInFlight,
    writeBufferHardLimit: s.serverWriteBufferHardLimit,
    frameDeadlineMs: s.serverFrameDeadlineMillis,
    headerLimits: { maxHeaderSize: s.serverHeaderMaxSize, maxExtFields: s.serverHeaderMaxExtFields },
  };
}

/**
 * A client never stops reading: if both ends paused on a full write buffer, each would wait for the
 * other to read and neither would. Its writes are bounded by maxPendingRequests instead. The other
 * per-connection limits are the server's defence against its peers and stay off here, so that a
 * consumer receiving large pull responses over a slow link is never cut.
 */
export function clientConnectionSettings(s: RemotingClientSettings): ConnectionSettings {
  return {
    maxFrameSize: s.maxFrameSize,
    writeBufferHighWaterMark: Number.POSITIVE_INFINITY,
    writeBufferLowWaterMark: 0,
    channelMaxIdleTimeSeconds: s.clientChannelMaxIdleTimeSeconds,
    maxPendingRequests: s.maxPendingRequests,
    defaultInvokeTimeoutMs: s.defaultInvokeTimeoutMs,
    closeOnInvokeTimeout: s.clientCloseSocketIfTimeout,
    maxRequestsInFlight: Number.POSITIVE_INFINITY,
    writeBufferHardLimit: Number.POSITIVE_INFINITY,
    frameDeadlineMs: 0,
    headerLimits: undefined,
  };
}
