/**
 * TLS settings: the server defaults and checks, upstream's `tls.*` property keys (broker.conf, the
 * name server's file, tls.config.file) and the client options.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadBrokerConfig } from '../../../src/broker/broker-config.js';
import { resolveClientConfig } from '../../../src/client/client-config.js';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  DEFAULT_TLS_SYSTEM_CONFIG,
  parseTlsProperties,
  resolveTlsSystemConfig,
  serverSettings,
  tlsClientOptionsOf,
  tlsClientSettings,
  tlsServerSettings,
  tlsSystemConfig,
} from '../../../src/remoting/transport/index.js';

const dir = mkdtempSync(join(tmpdir(), 'rmq-tls-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const env = { hostName: 'h', localAddress: '10.0.0.1', homeDir: dir, namesrvAddr: undefined };

function capture(): { logger: ReturnType<typeof createLogger>; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: createLogger('t', { level: 'debug', sink: (r) => records.push(r) }), records };
}

describe('server settings', () => {
  test('upstream 4.9.8 defaults: permissive, test mode, no client auth; Netty 10 s handshake', () => {
    const s = tlsServerSettings();
    assert.equal(s.tlsMode, 'permissive');
    assert.equal(s.tlsTestModeEnable, true);
    assert.equal(s.tlsServerNeedClientAuth, 'none');
    assert.equal(s.tlsServerAuthClient, false);
    assert.equal(s.tlsServerKeyPath, undefined);
    assert.equal(s.tlsHandshakeTimeoutMillis, 10_000);
    assert.deepEqual(serverSettings().tls, s);
  });

  test('RemotingServer settings merge a partial tls over the defaults', () => {
    const s = serverSettings({ tls: { tlsMode: 'enforcing', tlsHandshakeTimeoutMillis: 50 } });
    assert.equal(s.tls.tlsMode, 'enforcing');
    assert.equal(s.tls.tlsHandshakeTimeoutMillis, 50);
    assert.equal(s.tls.tlsTestModeEnable, true);
  });

  test('bad values are refused by name', () => {
    assert.throws(() => tlsServerSettings({ tlsMode: 'strict' as never }), /tlsMode must be one of/);
    assert.throws(() => tlsServerSettings({ tlsServerNeedClientAuth: 'REQUIRE' as never }), /NeedClientAuth/);
    assert.throws(() => tlsServerSettings({ tlsHandshakeTimeoutMillis: 0 }), /tlsHandshakeTimeoutMillis/);
    assert.throws(
      () => tlsServerSettings({ tlsRefusalLogIntervalMillis: -1 }),
      /tlsRefusalLogIntervalMillis/,
    );
    assert.throws(() => tlsServerSettings({ tlsTestModeEnable: 'yes' as never }), ValidationError);
  });
});

describe('tls.* properties', () => {
  test('every upstream key parses to its field', () => {
    const { values, errors } = parseTlsProperties([
      ['tls.server.mode', 'enforcing'],
      ['tls.enable', 'TRUE'],
      ['tls.config.file', '/x/tls.properties'],
      ['tls.test.mode.enable', 'false'],
      ['tls.server.need.client.auth', 'Require'],
      ['tls.server.keyPath', '/k'],
      ['tls.server.keyPassword', 'pw'],
      ['tls.server.certPath', '/c'],
      ['tls.server.authClient', 'true'],
      ['tls.server.trustCertPath', '/ca'],
      ['tls.client.keyPath', '/ck'],
      ['tls.client.keyPassword', 'cpw'],
      ['tls.client.certPath', '/cc'],
      ['tls.client.authServer', 'true'],
      ['tls.client.trustCertPath', '/cca'],
      ['listenPort', '1'],
    ]);
    assert.deepEqual(errors, []);
    assert.deepEqual(values, {
      tlsMode: 'enforcing',
      tlsEnable: true,
      tlsConfigFile: '/x/tls.properties',
      tlsTestModeEnable: false,
      tlsServerNeedClientAuth: 'require',
      tlsServerKeyPath: '/k',
      tlsServerKeyPassword: 'pw',
      tlsServerCertPath: '/c',
      tlsServerAuthClient: true,
      tlsServerTrustCertPath: '/ca',
      tlsClientKeyPath: '/ck',
      tlsClientKeyPassword: 'cpw',
      tlsClientCertPath: '/cc',
      tlsClientAuthServer: true,
      tlsClientTrustCertPath: '/cca',
    });
  });

  test('blank client auth is none and empty paths are unset, as TlsHelper reads them', () => {
    const { values } = parseTlsProperties([
      ['tls.server.need.client.auth', ' '],
      ['tls.server.keyPath', ''],
    ]);
    assert.deepEqual(values, { tlsServerNeedClientAuth: 'none', tlsServerKeyPath: undefined });
  });

  test('values upstream would silently default are errors naming the key, never echoing a secret', () => {
    const { errors } = parseTlsProperties([
      ['tls.server.mode', 'ENFORCING'],
      ['tls.test.mode.enable', 'yes'],
      ['tls.server.need.client.auth', 'always'],
    ]);
    assert.equal(errors.length, 3);
    assert.match(errors[0] ?? '', /^tls\.server\.mode: not one of disabled, permissive, enforcing/);
    assert.match(errors[1] ?? '', /^tls\.test\.mode\.enable: not true or false/);
    assert.match(errors[2] ?? '', /^tls\.server\.need\.client\.auth: not one of none, optional, require/);
  });

  test('broker.conf: tls keys go apart, key passwords never reach GET_BROKER_CONFIG', () => {
    const loaded = loadBrokerConfig(
      'brokerName=b\ntls.server.mode=enforcing\ntls.enable=true\ntls.server.keyPassword=s3cret\ntls.client.keyPassword=s3cret2\n',
      { env },
    );
    assert.deepEqual(loaded.tls, {
      tlsMode: 'enforcing',
      tlsEnable: true,
      tlsServerKeyPassword: 's3cret',
      tlsClientKeyPassword: 's3cret2',
    });
    assert.deepEqual(loaded.unknownKeys, []);
    assert.equal(loaded.properties.get('tls.server.mode'), 'enforcing');
    assert.equal(loaded.properties.has('tls.server.keyPassword'), false);
    assert.equal(loaded.properties.has('tls.client.keyPassword'), false);
    assert.throws(
      () => loadBrokerConfig('tls.server.mode=on\n', { env, source: 'b.conf' }),
      /b\.conf: tls\.server\.mode: not one of/,
    );
  });
});

describe('tls.config.file', () => {
  test('overrides every key but tls.server.mode and tls.enable, which it warns about', () => {
    const file = join(dir, 'tls.properties');
    writeFileSync(
      file,
      [
        'tls.server.mode=disabled',
        'tls.enable=false',
        'tls.test.mode.enable=false',
        'tls.server.need.client.auth=optional',
        'tls.server.certPath=/etc/c.pem',
        'tls.client.authServer=true',
        'tls.bogus=1',
      ].join('\n'),
    );
    const { logger, records } = capture();
    const c = resolveTlsSystemConfig(
      { tlsMode: 'enforcing', tlsEnable: true, tlsConfigFile: file, tlsServerCertPath: '/ignored' },
      { logger },
    );
    assert.equal(c.tlsMode, 'enforcing');
    assert.equal(c.tlsEnable, true);
    assert.equal(c.tlsTestModeEnable, false);
    assert.equal(c.tlsServerNeedClientAuth, 'optional');
    assert.equal(c.tlsServerCertPath, '/etc/c.pem');
    assert.equal(c.tlsClientAuthServer, true);
    const warned = records.filter((r) => r.level === 'warn').map((r) => r.fields.key);
    assert.deepEqual(warned, ['tls.server.mode', 'tls.enable', 'tls.bogus']);
  });

  test('an explicitly named file must exist; with TLS off entirely it is not read', () => {
    const missing = join(dir, 'nope.properties');
    assert.throws(() => resolveTlsSystemConfig({ tlsConfigFile: missing }), /tls\.config\.file .*nope/);
    const off = resolveTlsSystemConfig({ tlsMode: 'disabled', tlsConfigFile: missing });
    assert.equal(off.tlsMode, 'disabled');
  });

  test('a bad value in the file names the file and the key', () => {
    const file = join(dir, 'bad.properties');
    writeFileSync(file, 'tls.server.authClient=maybe\n');
    assert.throws(
      () => resolveTlsSystemConfig({ tlsConfigFile: file }),
      /bad\.properties: tls\.server\.authClient/,
    );
  });

  test('defaults are upstream TlsSystemConfig defaults', () => {
    assert.deepEqual(tlsSystemConfig(), DEFAULT_TLS_SYSTEM_CONFIG);
    assert.equal(DEFAULT_TLS_SYSTEM_CONFIG.tlsConfigFile, '/etc/rocketmq/tls.properties');
    assert.equal(DEFAULT_TLS_SYSTEM_CONFIG.tlsEnable, false);
  });
});

describe('client options', () => {
  test('true verifies the server, as node:tls; rejectUnauthorized: false (or authServer: false) does not', () => {
    assert.equal(tlsClientSettings(undefined), undefined);
    assert.equal(tlsClientSettings(false), undefined);
    assert.deepEqual(tlsClientSettings(true), {
      ca: undefined,
      cert: undefined,
      key: undefined,
      passphrase: undefined,
      authServer: true,
      verifyHostname: false,
      servername: undefined,
    });
    assert.equal(tlsClientSettings({ ca: 'PEM' })?.authServer, true);
    assert.equal(tlsClientSettings({ rejectUnauthorized: false })?.authServer, false);
    assert.equal(tlsClientSettings({ rejectUnauthorized: true })?.authServer, true);
    assert.throws(
      () => tlsClientSettings({ rejectUnauthorized: false, authServer: true }),
      /say the same thing/,
    );
    assert.throws(
      () => tlsClientSettings({ rejectUnauthorized: false, verifyHostname: true }),
      /verifyHostname/,
    );
    assert.equal(tlsClientSettings({ ca: 'PEM', authServer: false })?.authServer, false);
    assert.equal(tlsClientSettings({ authServer: true })?.authServer, true);
  });

  test('ClientOptions.tls reaches the transport settings; a bad one is a client-side error', () => {
    const base = { namesrvAddr: '127.0.0.1:9876', clientIP: '127.0.0.1' };
    assert.equal(resolveClientConfig(base).remoting.tls, undefined);
    const config = resolveClientConfig({ ...base, tls: { ca: 'PEM' }, remoting: { connectTimeoutMs: 10 } });
    assert.equal(config.remoting.tls?.authServer, true);
    assert.equal(config.remoting.connectTimeoutMs, 10);
    assert.throws(
      () => resolveClientConfig({ ...base, tls: { key: 'PEM' } }),
      (e: unknown) => e instanceof ValidationError && e.responseCode === -1,
    );
  });

  test('inconsistent options are refused', () => {
    assert.throws(() => tlsClientSettings({ cert: 'PEM' }), /cert and tls\.key go together/);
    assert.throws(
      () => tlsClientSettings({ verifyHostname: true, authServer: false }),
      /verifyHostname needs/,
    );
    assert.throws(() => tlsClientSettings({ ca: 42 as never }), /tls\.ca must be PEM/);
  });

  test('tls.enable and the tls.client.* files give the broker its outgoing TLS', () => {
    assert.equal(tlsClientOptionsOf(tlsSystemConfig()), undefined);
    assert.deepEqual(tlsClientOptionsOf(tlsSystemConfig({ tlsEnable: true })), { authServer: false });
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, 'CA');
    const options = tlsClientOptionsOf(
      tlsSystemConfig({
        tlsEnable: true,
        tlsTestModeEnable: false,
        tlsClientAuthServer: true,
        tlsClientTrustCertPath: ca,
      }),
    );
    assert.equal(options?.authServer, true);
    assert.equal(options?.ca?.toString(), 'CA');
    assert.throws(
      () =>
        tlsClientOptionsOf(
          tlsSystemConfig({
            tlsEnable: true,
            tlsTestModeEnable: false,
            tlsClientCertPath: join(dir, 'none'),
          }),
        ),
      /tls\.client\.certPath/,
    );
  });
});
