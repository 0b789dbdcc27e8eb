/**
 * Upstream's TlsSystemConfig as a value: every `tls.*` property with its 4.9.8 default, read from
 * broker.conf / the name server's config file (upstream reads them as JVM system properties), then
 * overridden by the `tls.config.file` properties file as TlsHelper.extractTlsConfigFromFile does —
 * every key but `tls.server.mode` and `tls.enable`. Unlike upstream, a value that does not parse is
 * an error naming the key (upstream reads an unknown mode as permissive and a bad boolean as false),
 * and a `tls.config.file` set explicitly must exist.
 */
import { readFileSync } from 'node:fs';
import { ValidationError } from '../../common/errors.js';
import { parseJavaProperties } from '../../common/java-properties.js';
import type { Logger } from '../../common/logger.js';
import {
  checkTlsServerConfig,
  DEFAULT_TLS_SERVER_SETTINGS,
  TLS_CLIENT_AUTH_MODES,
  TLS_MODES,
  type TlsClientAuth,
  type TlsClientOptions,
  type TlsMode,
  type TlsServerConfig,
} from './tls-settings.js';

export interface TlsSystemConfig extends TlsServerConfig {
  /** `tls.enable` [false]: this process's own outgoing connections (a broker's to name servers) use TLS. */
  tlsEnable: boolean;
  /** `tls.config.file` [/etc/rocketmq/tls.properties]: read when present. */
  tlsConfigFile: string;
  /** `tls.client.keyPath`: PEM key of the client certificate. */
  tlsClientKeyPath: string | undefined;
  /** `tls.client.keyPassword`. Never logged. */
  tlsClientKeyPassword: string | undefined;
  /** `tls.client.certPath`: PEM client certificate chain. */
  tlsClientCertPath: string | undefined;
  /** `tls.client.authServer` [false]: verify the server's chain (test mode never does). */
  tlsClientAuthServer: boolean;
  /** `tls.client.trustCertPath`: PEM CA certificates for the server's chain. */
  tlsClientTrustCertPath: string | undefined;
}

export const DEFAULT_TLS_CONFIG_FILE = '/etc/rocketmq/tls.properties';

export const DEFAULT_TLS_SYSTEM_CONFIG: Readonly<TlsSystemConfig> = Object.freeze({
  tlsMode: DEFAULT_TLS_SERVER_SETTINGS.tlsMode,
  tlsTestModeEnable: DEFAULT_TLS_SERVER_SETTINGS.tlsTestModeEnable,
  tlsServerNeedClientAuth: DEFAULT_TLS_SERVER_SETTINGS.tlsServerNeedClientAuth,
  tlsServerKeyPath: undefined,
  tlsServerKeyPassword: undefined,
  tlsServerCertPath: undefined,
  tlsServerAuthClient: DEFAULT_TLS_SERVER_SETTINGS.tlsServerAuthClient,
  tlsServerTrustCertPath: undefined,
  tlsEnable: false,
  tlsConfigFile: DEFAULT_TLS_CONFIG_FILE,
  tlsClientKeyPath: undefined,
  tlsClientKeyPassword: undefined,
  tlsClientCertPath: undefined,
  tlsClientAuthServer: false,
  tlsClientTrustCertPath: undefined,
});

type Kind = 'mode' | 'clientAuth' | 'boolean' | 'path' | 'secret';

/** Property key, the field it sets, how its value parses. */
export const TLS_PROPERTY_KEYS: ReadonlyMap<string, { field: keyof TlsSystemConfig; kind: Kind }> = new Map([
  ['tls.server.mode', { field: 'tlsMode', kind: 'mode' }],
  ['tls.enable', { field: 'tlsEnable', kind: 'boolean' }],
  ['tls.config.file', { field: 'tlsConfigFile', kind: 'path' }],
  ['tls.test.mode.enable', { field: 'tlsTestModeEnable', kind: 'boolean' }],
  ['tls.server.need.client.auth', { field: 'tlsServerNeedClientAuth', kind: 'clientAuth' }],
  ['tls.server.keyPath', { field: 'tlsServerKeyPath', kind: 'path' }],
  ['tls.server.keyPassword', { field: 'tlsServerKeyPassword', kind: 'secret' }],
  ['tls.server.certPath', { field: 'tlsServerCertPath', kind: 'path' }],
  ['tls.server.authClient', { field: 'tlsServerAuthClient', kind: 'boolean' }],
  ['tls.server.trustCertPath', { field: 'tlsServerTrustCertPath', kind: 'path' }],
  ['tls.client.keyPath', { field: 'tlsClientKeyPath', kind: 'path' }],
  ['tls.client.keyPassword', { field: 'tlsClientKeyPassword', kind: 'secret' }],
  ['tls.client.certPath', { field: 'tlsClientCertPath', kind: 'path' }],
  ['tls.client.authServer', { field: 'tlsClientAuthServer', kind: 'boolean' }],
  ['tls.client.trustCertPath', { field: 'tlsClientTrustCertPath', kind: 'path' }],
] as const);

/** Keys tls.config.file cannot set (TlsSystemConfig's javadoc; extractTlsConfigFromFile skips them). */
const NOT_FROM_CONFIG_FILE = new Set(['tls.server.mode', 'tls.enable', 'tls.config.file']);

export function isTlsPropertyKey(key: string): boolean {
  return TLS_PROPERTY_KEYS.has(key);
}

/** Keys whose values are secrets: never logged, never reported by a config query. */
export function isSecretTlsPropertyKey(key: string): boolean {
  return TLS_PROPERTY_KEYS.get(key)?.kind === 'secret';
}

function parseValue(key: string, kind: Kind, text: string): { value: unknown } | { error: string } {
  switch (kind) {
    case 'mode':
      // TlsMode.parse matches the exact lower-case names.
      return TLS_MODES.includes(text as TlsMode)
        ? { value: text }
        : { error: `${key}: not one of ${TLS_MODES.join(', ')}: ${JSON.stringify(text)}` };
    case 'clientAuth': {
      // parseClientAuthMode: blank is none; otherwise matched ignoring case.
      const lower = text.trim() === '' ? 'none' : text.toLowerCase();
      return TLS_CLIENT_AUTH_MODES.includes(lower as TlsClientAuth)
        ? { value: lower }
        : { error: `${key}: not one of ${TLS_CLIENT_AUTH_MODES.join(', ')}: ${JSON.stringify(text)}` };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower !== 'true' && lower !== 'false')
        return { error: `${key}: not true or false: ${JSON.stringify(text)}` };
      return { value: lower === 'true' };
    }
    case 'path':
      // TlsHelper treats an empty path as unset.
      return { value: text === '' ? undefined : text };
    case 'secret':
      // Never echo a secret, even a malformed one.
      return { value: text === '' ? undefined : text };
  }
}

/**
 * The `tls.*` entries of `properties` as settings; other keys are skipped. Errors name the key, never
 * a secret value.
 */
export function parseTlsProperties(properties: Iterable<readonly [string, string]>): {
  values: Partial<TlsSystemConfig>;
  errors: string[];
} {
  const values: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [key, text] of properties) {
    const spec = TLS_PROPERTY_KEYS.get(key);
    if (spec === undefined) continue;
    const parsed = parseValue(key, spec.kind, text);
    if ('error' in parsed) errors.push(parsed.error);
    else values[spec.field] = parsed.value;
  }
  return { values: values as Partial<TlsSystemConfig>, errors };
}

/** Defaults under `overrides` (undefined values change nothing), checked. */
export function tlsSystemConfig(overrides: Partial<TlsSystemConfig> = {}): TlsSystemConfig {
  const c: TlsSystemConfig = { ...DEFAULT_TLS_SYSTEM_CONFIG };
  for (const [k, v] of Object.entries(overrides))
    if (v !== undefined) (c as unknown as Record<string, unknown>)[k] = v;
  checkTlsServerConfig('TlsSystemConfig', c);
  for (const name of ['tlsEnable', 'tlsClientAuthServer'] as const) {
    if (typeof c[name] !== 'boolean')
      throw new ValidationError(`TlsSystemConfig.${name} must be true or false`);
  }
  if (typeof c.tlsConfigFile !== 'string' || c.tlsConfigFile === '') {
    throw new ValidationError('TlsSystemConfig.tlsConfigFile must be a non-empty path');
  }
  return c;
}

export interface ResolveTlsOptions {
  logger?: Logger | undefined;
}

/**
 * `overrides` over the defaults, then `tls.config.file` over those (as upstream, the file wins over
 * the properties for every key it may set). The file is read only when TLS is in use (a mode other
 * than disabled, or tlsEnable); a missing file at the default path is skipped as upstream skips it.
 */
export function resolveTlsSystemConfig(
  overrides: Partial<TlsSystemConfig> = {},
  options: ResolveTlsOptions = {},
): TlsSystemConfig {
  const base = tlsSystemConfig(overrides);
  if (base.tlsMode === 'disabled' && !base.tlsEnable) return base;
  const file = base.tlsConfigFile;
  let text: string;
  try {
    // Properties.load(InputStream) reads ISO-8859-1.
    text = readFileSync(file, 'latin1');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (file === DEFAULT_TLS_CONFIG_FILE && (code === 'ENOENT' || code === 'ENOTDIR')) return base;
    throw new ValidationError(`tls.config.file ${file}: ${(error as Error).message}`);
  }
  const properties = parseJavaProperties(text);
  const fromFile: Array<[string, string]> = [];
  for (const [key, value] of properties) {
    if (NOT_FROM_CONFIG_FILE.has(key)) {
      options.logger?.warn('key not allowed in tls.config.file ignored', { file, key });
    } else if (!isTlsPropertyKey(key)) {
      options.logger?.warn('unknown key in tls.config.file ignored', { file, key });
    } else {
      fromFile.push([key, value]);
    }
  }
  const { values, errors } = parseTlsProperties(fromFile);
  if (errors.length > 0) throw new ValidationError(`tls.config.file ${file}: ${errors.join('; ')}`);
  options.logger?.info('tls.config.file read', { file, keys: fromFile.length });
  return tlsSystemConfig({ ...base, ...values });
}

/** The server half, for RemotingServerSettings.tls. */
export function tlsServerConfigOf(c: TlsSystemConfig): TlsServerConfig {
  return {
    tlsMode: c.tlsMode,
    tlsTestModeEnable: c.tlsTestModeEnable,
    tlsServerNeedClientAuth: c.tlsServerNeedClientAuth,
    tlsServerKeyPath: c.tlsServerKeyPath,
    tlsServerKeyPassword: c.tlsServerKeyPassword,
    tlsServerCertPath: c.tlsServerCertPath,
    tlsServerAuthClient: c.tlsServerAuthClient,
    tlsServerTrustCertPath: c.tlsServerTrustCertPath,
  };
}

function readPem(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ValidationError(`${key} ${path}: ${(error as Error).message}`);
  }
}

/**
 * The client half when tlsEnable is on (undefined otherwise), files read now: TlsHelper's client
 * context. Test mode trusts every server and sends no certificate; otherwise the server is verified
 * only with tls.client.authServer, and a client certificate is sent when one is configured.
 */
export function tlsClientOptionsOf(c: TlsSystemConfig): TlsClientOptions | undefined {
  if (!c.tlsEnable) return undefined;
  if (c.tlsTestModeEnable) return { authServer: false };
  const options: TlsClientOptions = { authServer: c.tlsClientAuthServer };
  if (c.tlsClientAuthServer && c.tlsClientTrustCertPath !== undefined) {
    options.ca = readPem('tls.client.trustCertPath', c.tlsClientTrustCertPath);
  }
  if (c.tlsClientCertPath !== undefined) options.cert = readPem('tls.client.certPath', c.tlsClientCertPath);
  if (c.tlsClientKeyPath !== undefined) options.key = readPem('tls.client.keyPath', c.tlsClientKeyPath);
  if (c.tlsClientKeyPassword !== undefined) options.passphrase = c.tlsClientKeyPassword;
  return options;
}
