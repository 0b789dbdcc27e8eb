/**
 * TLS settings of one RemotingServer (upstream's TlsSystemConfig server keys, 4.9.8 defaults) and of
 * one RemotingClient (node:tls terms, upstream's defaults). Field names are TlsSystemConfig's; the
 * property keys that set them (`tls.server.mode`...) are in tls-system-config.ts.
 */
import { ValidationError } from '../../common/errors.js';

/**
 * `tls.server.mode`: disabled refuses a TLS ClientHello, permissive serves TLS and plaintext on the
 * same port, enforcing refuses plaintext.
 */
export type TlsMode = 'disabled' | 'permissive' | 'enforcing';
export const TLS_MODES: readonly TlsMode[] = ['disabled', 'permissive', 'enforcing'];

/** `tls.server.need.client.auth` (Netty's ClientAuth). */
export type TlsClientAuth = 'none' | 'optional' | 'require';
export const TLS_CLIENT_AUTH_MODES: readonly TlsClientAuth[] = ['none', 'optional', 'require'];

/** The server keys of upstream's TlsSystemConfig. */
export interface TlsServerConfig {
  /** `tls.server.mode` [permissive]. */
  tlsMode: TlsMode;
  /**
   * `tls.test.mode.enable` [true]: serve a self-signed certificate made when the first ClientHello
   * arrives; the key, certificate and client-auth settings below are then not used.
   */
  tlsTestModeEnable: boolean;
  /** `tls.server.need.client.auth` [none]. */
  tlsServerNeedClientAuth: TlsClientAuth;
  /** `tls.server.keyPath`: PEM private key (PKCS#8, or any form node:tls reads). */
  tlsServerKeyPath: string | undefined;
  /** `tls.server.keyPassword`: passphrase of an encrypted key. Never logged. */
  tlsServerKeyPassword: string | undefined;
  /** `tls.server.certPath`: PEM certificate chain. */
  tlsServerCertPath: string | undefined;
  /**
   * `tls.server.authClient` [false]: verify client certificates against tlsServerTrustCertPath (the
   * system CAs when unset); false accepts any client certificate, as upstream's insecure trust manager.
   */
  tlsServerAuthClient: boolean;
  /** `tls.server.trustCertPath`: PEM CA certificates for client certificates. */
  tlsServerTrustCertPath: string | undefined;
}

export interface TlsServerSettings extends TlsServerConfig {
  /**
   * A TLS handshake not finished this long after its first byte closes the connection (Netty
   * SslHandler's handshakeTimeoutMillis [10 s]); absolute, so a trickled ClientHello cannot stretch it.
   */
  tlsHandshakeTimeoutMillis: number;
  /** A refused or failed connection logs at most one line per reason per this interval, ms [1 s]. */
  tlsRefusalLogIntervalMillis: number;
}

export const DEFAULT_TLS_SERVER_SETTINGS: Readonly<TlsServerSettings> = Object.freeze({
  tlsMode: 'permissive',
  tlsTestModeEnable: true,
  tlsServerNeedClientAuth: 'none',
  tlsServerKeyPath: undefined,
  tlsServerKeyPassword: undefined,
  tlsServerCertPath: undefined,
  tlsServerAuthClient: false,
  tlsServerTrustCertPath: undefined,
  tlsHandshakeTimeoutMillis: 10_000,
  tlsRefusalLogIntervalMillis: 1000,
});

function checkOneOf<T extends string>(what: string, value: unknown, allowed: readonly T[]): void {
  if (!allowed.includes(value as T)) {
    throw new ValidationError(`${what} must be one of ${allowed.join(', ')}, got ${String(value)}`);
  }
}

function checkOptionalString(what: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string') {
    throw new ValidationError(`${what} must be a string, got ${typeof value}`);
  }
}

function checkBoolean(what: string, value: unknown): void {
  if (typeof value !== 'boolean')
    throw new ValidationError(`${what} must be true or false, got ${String(value)}`);
}

/** Checks the fields every TLS config shares; `owner` names them in errors. */
export function checkTlsServerConfig(owner: string, c: TlsServerConfig): void {
  checkOneOf(`${owner}.tlsMode`, c.tlsMode, TLS_MODES);
  checkOneOf(`${owner}.tlsServerNeedClientAuth`, c.tlsServerNeedClientAuth, TLS_CLIENT_AUTH_MODES);
  checkBoolean(`${owner}.tlsTestModeEnable`, c.tlsTestModeEnable);
  checkBoolean(`${owner}.tlsServerAuthClient`, c.tlsServerAuthClient);
  checkOptionalString(`${owner}.tlsServerKeyPath`, c.tlsServerKeyPath);
  checkOptionalString(`${owner}.tlsServerKeyPassword`, c.tlsServerKeyPassword);
  checkOptionalString(`${owner}.tlsServerCertPath`, c.tlsServerCertPath);
  checkOptionalString(`${owner}.tlsServerTrustCertPath`, c.tlsServerTrustCertPath);
}

/** Defaults under `overrides`, checked. */
export function tlsServerSettings(overrides: Partial<TlsServerSettings> = {}): TlsServerSettings {
  const s: TlsServerSettings = { ...DEFAULT_TLS_SERVER_SETTINGS };
  for (const [k, v] of Object.entries(overrides))
    if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
  checkTlsServerConfig('TlsServerSettings', s);
  const timeout = s.tlsHandshakeTimeoutMillis;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    throw new ValidationError(
      `TlsServerSettings.tlsHandshakeTimeoutMillis must be a number > 0, got ${String(timeout)}`,
    );
  }
  const interval = s.tlsRefusalLogIntervalMillis;
  if (typeof interval !== 'number' || !Number.isFinite(interval) || interval < 0) {
    throw new ValidationError(
      `TlsServerSettings.tlsRefusalLogIntervalMillis must be a number >= 0, got ${String(interval)}`,
    );
  }
  return s;
}

/** PEM text or bytes, or several. */
export type PemInput = string | Buffer | ReadonlyArray<string | Buffer>;

/**
 * How a client connects with TLS. As node:tls, the server's certificate chain is verified by
 * default (against `ca`, else the system CAs); `rejectUnauthorized: false` accepts any server, which
 * is upstream's client default (`tls.client.authServer=false`, brokers serving a self-signed test
 * certificate). The host name is checked only with `verifyHostname`: upstream has no such check.
 */
export interface TlsClientOptions {
  /** CA certificates the server's chain must lead to (default: the system CAs). */
  ca?: PemInput | undefined;
  /** Client certificate chain for servers that ask for one (mutual TLS). */
  cert?: PemInput | undefined;
  /** Private key of `cert`. */
  key?: PemInput | undefined;
  /** Passphrase of an encrypted `key`. */
  passphrase?: string | undefined;
  /**
   * Verify the server's certificate chain, against `ca` or else the system CAs [true], node:tls's
   * name for it. `false` accepts any server certificate: encryption without authentication.
   */
  rejectUnauthorized?: boolean | undefined;
  /** Upstream's name for rejectUnauthorized (`tls.client.authServer`); the two must agree. */
  authServer?: boolean | undefined;
  /** Also check that the certificate names the host connected to (or `servername`) [false]. */
  verifyHostname?: boolean | undefined;
  /** SNI name sent, and the name verifyHostname checks. Default: the host, unless it is an IP address. */
  servername?: string | undefined;
}

/** A client's TLS settings after defaults. */
export interface TlsClientSettings {
  readonly ca: PemInput | undefined;
  readonly cert: PemInput | undefined;
  readonly key: PemInput | undefined;
  readonly passphrase: string | undefined;
  readonly authServer: boolean;
  readonly verifyHostname: boolean;
  readonly servername: string | undefined;
}

function checkPem(what: string, value: unknown): void {
  if (value === undefined || typeof value === 'string' || Buffer.isBuffer(value)) return;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || Buffer.isBuffer(v))) return;
  throw new ValidationError(`${what} must be PEM text, a Buffer, or a list of them`);
}

/** `true` or options to settings; `false` or undefined to undefined (plaintext). */
export function tlsClientSettings(
  option: boolean | TlsClientOptions | undefined,
): TlsClientSettings | undefined {
  if (option === undefined || option === false) return undefined;
  const o: TlsClientOptions = option === true ? {} : option;
  if (typeof o !== 'object' || o === null)
    throw new ValidationError('tls must be true, false or an options object');
  checkPem('tls.ca', o.ca);
  checkPem('tls.cert', o.cert);
  checkPem('tls.key', o.key);
  checkOptionalString('tls.passphrase', o.passphrase);
  checkOptionalString('tls.servername', o.servername);
  if (o.authServer !== undefined) checkBoolean('tls.authServer', o.authServer);
  if (o.rejectUnauthorized !== undefined) checkBoolean('tls.rejectUnauthorized', o.rejectUnauthorized);
  if (
    o.authServer !== undefined &&
    o.rejectUnauthorized !== undefined &&
    o.authServer !== o.rejectUnauthorized
  ) {
    throw new ValidationError('tls.authServer and tls.rejectUnauthorized say the same thing: give one');
  }
  if (o.verifyHostname !== undefined) checkBoolean('tls.verifyHostname', o.verifyHostname);
  if ((o.cert === undefined) !== (o.key === undefined)) {
    throw new ValidationError('tls.cert and tls.key go together: give both or neither');
  }
  const authServer = o.rejectUnauthorized ?? o.authServer ?? true;
  if (o.verifyHostname === true && !authServer) {
    throw new ValidationError('tls.verifyHostname needs the server verified: drop rejectUnauthorized: false');
  }
  return {
    ca: o.ca,
    cert: o.cert,
    key: o.key,
    passphrase: o.passphrase,
    authServer,
    verifyHostname: o.verifyHostname ?? false,
    servername: o.servername,
  };
}
