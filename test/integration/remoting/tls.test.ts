/**
 * TLS on a RemotingServer over real TCP: the three modes on one port, refusals and their
 * rate-limited log lines, garbage and stalled handshakes, certificates from files, client
 * certificates (mutual TLS), and the client's own verification of the server.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import { after, afterEach, describe, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { createRequest, createResponse } from '../../../src/remoting/protocol/command.js';
import {
  type Connection,
  RemotingClient,
  type RemotingClientSettings,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingServer,
  RemotingTimeoutError,
  type TlsClientOptions,
  type TlsServerSettings,
  tlsClientSettings,
} from '../../../src/remoting/transport/index.js';
import { makePki } from './tls-fixtures.js';

const ECHO = 100;
const LIMIT = { timeout: 20_000 };
const pki = makePki();
after(() => pki.remove());

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

interface Started {
  server: RemotingServer;
  address: string;
  port: number;
  records: LogRecord[];
}

async function startServer(tls: Partial<TlsServerSettings>, idleSeconds?: number): Promise<Started> {
  const records: LogRecord[] = [];
  const logger = createLogger('server', { level: 'debug', sink: (r) => records.push(r) });
  const server = new RemotingServer(
    { tls, ...(idleSeconds === undefined ? {} : { serverChannelMaxIdleTimeSeconds: idleSeconds }) },
    { logger },
  );
  cleanups.push(() => server.close());
  server.registerProcessor(ECHO, {
    processRequest: (_ctx, req) => createResponse(req, 0, { remark: 'echo', body: req.body }),
  });
  const bound = await server.listen({ host: '127.0.0.1', port: 0 });
  return { server, address: bound.address, port: bound.port, records };
}

/** TLS that accepts any server: the test certificate is made per process, no CA to give. */
const INSECURE: TlsClientOptions = { rejectUnauthorized: false };

function newClient(tls?: boolean | TlsClientOptions, settings: Partial<RemotingClientSettings> = {}) {
  const client = new RemotingClient(
    { connectTimeoutMs: 5000, ...settings, tls: tlsClientSettings(tls) },
    { logger: createLogger('client', { level: 'silent' }) },
  );
  cleanups.push(() => client.close());
  return client;
}

async function echo(client: RemotingClient, address: string): Promise<string | undefined> {
  const res = await client.invoke(address, createRequest(ECHO, { body: Buffer.from('hi') }), {
    timeoutMs: 5000,
  });
  return res.body?.toString();
}

function nextConnection(server: RemotingServer): Promise<Connection> {
  return new Promise((resolve) => server.once('connection', resolve));
}

/** A raw TCP socket that writes `bytes` once connected. */
async function rawSocket(port: number, bytes?: Buffer): Promise<Socket> {
  const socket = netConnect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  // Reads (and drops) what the server sends, so that its close is seen.
  socket.resume();
  cleanups.push(async () => {
    socket.destroy();
  });
  await once(socket, 'connect');
  if (bytes !== undefined) socket.write(bytes);
  return socket;
}

/**
 * Resolves on 'close' however the socket ends: events.once would reject on the ECONNRESET a reset
 * brings when the server closes while the peer still writes (the trickle test), a flake under load.
 */
function closed(socket: Socket): Promise<void> {
  if (socket.closed || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

function warnings(records: LogRecord[], pattern: RegExp): LogRecord[] {
  return records.filter((r) => r.level !== 'debug' && r.level !== 'info' && pattern.test(r.msg));
}

/** The refusal of a connection that got as far as a handshake: refused at connect or just after. */
function refusedConnection(e: unknown): boolean {
  return e instanceof RemotingConnectError || e instanceof RemotingConnectionClosedError;
}

describe('tlsMode on one port', () => {
  test('permissive (the default) serves TLS and plaintext side by side', LIMIT, async () => {
    const { server, address } = await startServer({});
    const accepted = nextConnection(server);
    assert.equal(await echo(newClient(INSECURE), address), 'hi');
    assert.equal((await accepted).stream.constructor.name, 'TLSSocket');
    assert.equal((await accepted).remoteAddress.startsWith('127.0.0.1:'), true);
    const plainAccepted = nextConnection(server);
    assert.equal(await echo(newClient(), address), 'hi');
    assert.equal((await plainAccepted).stream.constructor.name, 'Socket');
  });

  test('enforcing refuses plaintext with one warning naming the peer, serves TLS', LIMIT, async () => {
    const { address, records } = await startServer({ tlsMode: 'enforcing' });
    await assert.rejects(echo(newClient(), address), RemotingConnectionClosedError);
    const [line] = warnings(
      records,
      /insecure connection while this server is running in SSL enforcing mode/,
    );
    assert.ok(line);
    assert.match(String(line.fields.remoteAddress), /^127\.0\.0\.1:\d+$/);
    assert.equal(await echo(newClient(INSECURE), address), 'hi');
  });

  test('disabled refuses a ClientHello, serves plaintext', LIMIT, async () => {
    const { address, records } = await startServer({ tlsMode: 'disabled' });
    await assert.rejects(echo(newClient(INSECURE), address), RemotingConnectError);
    assert.equal(
      warnings(records, /SSL connection while this server is running in SSL disabled mode/).length,
      1,
    );
    assert.equal(await echo(newClient(), address), 'hi');
  });

  test(
    'a garbage first byte: enforcing closes at once; permissive reads it as a frame and closes',
    LIMIT,
    async () => {
      const garbage = Buffer.alloc(64, 0xff);
      const enforcing = await startServer({ tlsMode: 'enforcing' });
      await closed(await rawSocket(enforcing.port, garbage));
      assert.equal(warnings(enforcing.records, /SSL enforcing mode/).length, 1);

      const permissive = await startServer({});
      await closed(await rawSocket(permissive.port, garbage));
      assert.equal(await echo(newClient(), permissive.address), 'hi', 'the server still serves');
      assert.equal(await echo(newClient(INSECURE), permissive.address), 'hi');
    },
  );

  test('a connection that never sends a byte is closed after the idle time', LIMIT, async () => {
    const { server, port } = await startServer({}, 0.2);
    const socket = await rawSocket(port);
    await closed(socket);
    assert.equal(server.connections.size, 0);
  });
});

describe('handshakes that do not finish', () => {
  test('a stalled ClientHello is closed after tlsHandshakeTimeoutMillis', LIMIT, async () => {
    const { records, port } = await startServer({ tlsHandshakeTimeoutMillis: 300 });
    const started = Date.now();
    // A TLS record header announcing a ClientHello whose body never comes.
    await closed(await rawSocket(port, Buffer.of(0x16, 0x03, 0x01, 0x02, 0x00)));
    assert.ok(Date.now() - started >= 250, `closed after ${Date.now() - started} ms`);
    assert.equal(warnings(records, /TLS handshake not finished within 300 ms/).length, 1);
  });

  test('a trickled ClientHello cannot stretch the timeout: it is absolute', LIMIT, async () => {
    const { port } = await startServer({ tlsHandshakeTimeoutMillis: 400 });
    const socket = await rawSocket(port, Buffer.of(0x16, 0x03, 0x01, 0x40, 0x00));
    const drip = setInterval(() => socket.write(Buffer.of(0x01)), 50);
    try {
      const started = Date.now();
      await closed(socket);
      assert.ok(Date.now() - started < 5000);
    } finally {
      clearInterval(drip);
    }
  });

  test(
    'a ClientHello flood: every socket is released, refusals log one line per interval',
    LIMIT,
    async () => {
      const { server, records, port, address } = await startServer({
        tlsHandshakeTimeoutMillis: 300,
        tlsRefusalLogIntervalMillis: 60_000,
      });
      const sockets = await Promise.all(
        Array.from({ length: 30 }, () => rawSocket(port, Buffer.of(0x16, 0x03, 0x01, 0x02, 0x00))),
      );
      await Promise.all(sockets.map(closed));
      assert.equal(warnings(records, /TLS handshake not finished/).length, 1);
      assert.equal(server.connections.size, 0);
      assert.equal(await echo(newClient(INSECURE), address), 'hi');
    },
  );

  test('a broken handshake is refused with one line, the server keeps serving', LIMIT, async () => {
    const { records, port, address } = await startServer({});
    // A handshake record whose body is not a ClientHello.
    const bogus = Buffer.concat([Buffer.of(0x16, 0x03, 0x01, 0x00, 0x20), Buffer.alloc(32, 0x42)]);
    await closed(await rawSocket(port, bogus));
    assert.equal(warnings(records, /TLS handshake failed/).length, 1);
    assert.equal(await echo(newClient(INSECURE), address), 'hi');
  });
});

describe('certificates from files', () => {
  const files = (extra: Partial<TlsServerSettings> = {}): Partial<TlsServerSettings> => ({
    tlsMode: 'enforcing',
    tlsTestModeEnable: false,
    tlsServerCertPath: pki.server.certPath,
    tlsServerKeyPath: pki.server.keyPath,
    ...extra,
  });

  test(
    'the client verifies the chain when given the CA, and the host name only when asked',
    LIMIT,
    async () => {
      const { address } = await startServer(files());
      assert.equal(await echo(newClient({ ca: pki.ca }), address), 'hi');
      assert.equal(await echo(newClient({ ca: pki.ca, verifyHostname: true }), address), 'hi');
      assert.equal(await echo(newClient({ ca: pki.ca, servername: 'elsewhere' }), address), 'hi');
      await assert.rejects(
        echo(newClient({ ca: pki.ca, verifyHostname: true, servername: 'elsewhere' }), address),
        (e: unknown) => e instanceof RemotingConnectError && /elsewhere/.test(e.message),
      );
      await assert.rejects(echo(newClient({ ca: pki.untrusted.cert }), address), RemotingConnectError);
      await assert.rejects(echo(newClient({ authServer: true }), address), RemotingConnectError);
      await assert.rejects(echo(newClient(true), address), RemotingConnectError, 'tls: true verifies');
      assert.equal(await echo(newClient(INSECURE), address), 'hi', 'rejectUnauthorized: false trusts any');
    },
  );

  test('an encrypted key with tls.server.keyPassword; the password is never logged', LIMIT, async () => {
    const { address, records } = await startServer(
      files({ tlsServerKeyPath: pki.encryptedServerKeyPath, tlsServerKeyPassword: pki.passphrase }),
    );
    assert.equal(await echo(newClient({ ca: pki.ca }), address), 'hi');
    const wrong = new RemotingServer({
      tls: files({ tlsServerKeyPath: pki.encryptedServerKeyPath, tlsServerKeyPassword: 'wrong-passphrase' }),
    });
    const failure = await wrong.listen({ host: '127.0.0.1', port: 0 }).then(
      () => assert.fail('listen should fail'),
      (e: unknown) => e,
    );
    await wrong.close();
    assert.ok(failure instanceof ValidationError);
    assert.doesNotMatch(failure.message, /wrong-passphrase/);
    assert.doesNotMatch(JSON.stringify(records), new RegExp(pki.passphrase));
  });

  test('a missing certificate file fails listen(), naming the key', LIMIT, async () => {
    const server = new RemotingServer({ tls: files({ tlsServerCertPath: `${pki.dir}/missing.pem` }) });
    await assert.rejects(
      server.listen({ host: '127.0.0.1', port: 0 }),
      /tls\.server\.certPath .*missing\.pem/,
    );
    await server.close();
    const noPaths = new RemotingServer({ tls: { tlsTestModeEnable: false } });
    await assert.rejects(noPaths.listen({ host: '127.0.0.1', port: 0 }), /tls\.server\.certPath must be set/);
    await noPaths.close();
  });

  test('test mode ignores the key files, and says so', LIMIT, async () => {
    const { records } = await startServer({ tlsServerCertPath: pki.server.certPath });
    assert.equal(warnings(records, /not used while tls\.test\.mode\.enable is true/).length, 1);
  });
});

describe('client certificates (tls.server.need.client.auth)', () => {
  const mtls = (auth: 'optional' | 'require', authClient: boolean): Partial<TlsServerSettings> => ({
    tlsMode: 'enforcing',
    tlsTestModeEnable: false,
    tlsServerCertPath: pki.server.certPath,
    tlsServerKeyPath: pki.server.keyPath,
    tlsServerNeedClientAuth: auth,
    tlsServerAuthClient: authClient,
    tlsServerTrustCertPath: pki.caPath,
  });
  const signed = { ca: pki.ca, cert: pki.client.cert, key: pki.client.key };
  const intruder = { ca: pki.ca, cert: pki.untrusted.cert, key: pki.untrusted.key };

  test('require + authClient: a certificate the CA signed, nothing else', LIMIT, async () => {
    const { address, records } = await startServer(mtls('require', true));
    assert.equal(await echo(newClient(signed), address), 'hi');
    await assert.rejects(echo(newClient(INSECURE), address), refusedConnection);
    await assert.rejects(echo(newClient(intruder), address), refusedConnection);
    assert.equal(warnings(records, /no client certificate/).length, 1);
    assert.equal(warnings(records, /client certificate not trusted/).length, 1);
  });

  test('optional + authClient: no certificate is fine, an untrusted one is not', LIMIT, async () => {
    const { address } = await startServer(mtls('optional', true));
    assert.equal(await echo(newClient(INSECURE), address), 'hi');
    assert.equal(await echo(newClient(signed), address), 'hi');
    await assert.rejects(echo(newClient(intruder), address), refusedConnection);
  });

  test('require without authClient: any certificate, as upstream trusts every client', LIMIT, async () => {
    const { address } = await startServer(mtls('require', false));
    assert.equal(await echo(newClient(intruder), address), 'hi');
    await assert.rejects(echo(newClient(INSECURE), address), refusedConnection);
  });
});

/** A plain TCP listener that accepts and never answers a ClientHello: a TLS connect to it hangs. */
async function silentPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const held: Socket[] = [];
  silent.on('connection', (s) => held.push(s));
  cleanups.push(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  return (silent.address() as { port: number }).port;
}

describe('client connect', () => {
  test('the connect timeout covers the handshake', LIMIT, async () => {
    const client = newClient(true, { connectTimeoutMs: 300 });
    await assert.rejects(echo(client, `127.0.0.1:${await silentPort()}`), /timed out after 300 ms/);
  });

  test("a request's shorter timeout bounds its wait for the connection", LIMIT, async () => {
    // Closing the client waits for the attempt, so it is short too, but well over the request's.
    const client = newClient(true, { connectTimeoutMs: 2500 });
    const address = `127.0.0.1:${await silentPort()}`;
    const started = Date.now();
    const request = client.invoke(address, createRequest(ECHO), { timeoutMs: 300 });
    await assert.rejects(request, (error: unknown) => error instanceof RemotingTimeoutError);
    const waited = Date.now() - started;
    assert.ok(waited < 1500, `waited ${waited} ms for a request of 300 ms`);
    const oneway = client.invokeOneway(address, createRequest(ECHO), { timeoutMs: 300 });
    await assert.rejects(oneway, (error: unknown) => error instanceof RemotingTimeoutError);
  });

  test('the server-side TLS socket reports the peer certificate it got', LIMIT, async () => {
    const { server, address } = await startServer({
      tlsTestModeEnable: false,
      tlsServerCertPath: pki.server.certPath,
      tlsServerKeyPath: pki.server.keyPath,
      tlsServerNeedClientAuth: 'require',
    });
    const accepted = nextConnection(server);
    await echo(newClient({ ca: pki.ca, cert: pki.client.cert, key: pki.client.key }), address);
    const peer = ((await accepted).stream as TLSSocket).getPeerCertificate();
    assert.equal(peer.subject?.CN, 'client');
  });
});
