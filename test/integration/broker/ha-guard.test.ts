/**
 * The HA port as an attacker sees it (issue 26): closed where no slave is expected (`rmq start`, an
 * ASYNC_MASTER with totalReplicas=1), bound to brokerIP2 or haListenHost only; with ACL on, 8 zero
 * bytes, a wrong signature, an unknown or non-admin account, a stale or replayed handshake get no
 * byte back; with TLS enforcing, plaintext gets nothing; our slave with the right credentials, or
 * over TLS, replicates. Every refusal is checked against a master that holds data, so a port that
 * streamed would fail the test with bytes received.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { startFromArgs } from '../../../src/cli/start-command.js';
import { encodeHandshake } from '../../../src/store/ha/ha-handshake.js';
import { quiet } from '../../unit/broker/helpers.js';
import { msg, put } from '../../unit/store/default-message-store-support.js';
import { assertSameCommitLog, caughtUp, type HAPair, startPair, storeOf } from './ha-support.js';
import { freeBrokerPort } from './slave-support.js';

const LIMIT = { timeout: 60_000 };
const dir = mkdtempSync(join(tmpdir(), 'rmq-ha-guard-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = { accessKey: 'haAdmin01', secretKey: 'haAdminSecret01' };
const ACL_FILE = `accounts:
  - accessKey: ${ADMIN.accessKey}
    secretKey: ${ADMIN.secretKey}
    admin: true
  - accessKey: limitedAdmin
    secretKey: limitedSecret
    admin: true
    topicPerms:
      - Secret=DENY
  - accessKey: plainUser
    secretKey: plainSecret
    defaultTopicPerm: PUB|SUB
`;
/** An offset report of 0: what a plain upstream slave (or an attacker) sends first. */
const ZERO_REPORT = Buffer.alloc(8);

interface Probe {
  /** The connect itself failed with ECONNREFUSED. */
  refused: boolean;
  /** Bytes the port sent back before it closed (or before `untilBytes` arrived). */
  received: number;
}

/**
 * Connects, writes `payload`, and resolves once the port closed the connection or sent at least
 * `untilBytes` bytes; never on a timer.
 */
function probe(host: string, port: number, payload: Buffer, untilBytes = 1): Promise<Probe> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = 0;
    let done = false;
    const finish = (refused: boolean) => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ refused, received });
    };
    socket.on('connect', () => socket.write(payload));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= untilBytes) finish(false);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'ECONNREFUSED'));
    socket.on('close', () => finish(false));
  });
}

/** Whether something listens on host:port (the connect is closed at once). */
function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

function haPortOf(broker: BrokerController): { host: string; port: number } {
  const addr = broker.haServerAddr;
  const colon = addr.lastIndexOf(':');
  return { host: addr.slice(0, colon), port: Number(addr.slice(colon + 1)) };
}

async function fill(master: BrokerController, n = 20): Promise<void> {
  const store = storeOf(master);
  for (let i = 0; i < n; i++) await put(store, msg(i, { body: 'x'.repeat(500) }));
}

function aclHome(): string {
  const home = mkdtempSync(join(dir, 'home-'));
  mkdirSync(join(home, 'conf'), { recursive: true });
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
  return home;
}

describe('where the HA port opens', () => {
  test('an ASYNC_MASTER with totalReplicas=1 (the default) opens none', LIMIT, async () => {
    const p = await startPair({ totalReplicas: 1 });
    try {
      await fill(p.master);
      const port = p.master.listenPort + 1;
      const got = await probe('127.0.0.1', port, ZERO_REPORT);
      assert.equal(got.refused, true, `port ${port} must refuse the connect`);
      assert.equal(got.received, 0);
    } finally {
      await p.close();
    }
  });

  test('rmq start (no slave) opens none', LIMIT, async () => {
    const brokerPort = await freeBrokerPort();
    const pair = await startFromArgs(
      [
        '-d',
        join(dir, 'start-data'),
        '--namesrv-port',
        '0',
        '--broker-port',
        String(brokerPort),
        '--host',
        '127.0.0.1',
        '--dashboard-port=-1',
      ],
      { out: () => {}, err: () => {} },
    );
    try {
      assert.equal(pair.broker.config.haListenHost, '127.0.0.1', 'loopback, should a broker.conf open it');
      const got = await probe('127.0.0.1', brokerPort + 1, ZERO_REPORT);
      assert.equal(got.refused, true, 'rmq start must not listen on the HA port');
    } finally {
      await pair.close();
    }
  });

  test('a SYNC_MASTER always opens it', LIMIT, async () => {
    const p = await startPair({ brokerRole: 'SYNC_MASTER', totalReplicas: 1 });
    try {
      const { host, port } = haPortOf(p.master);
      assert.equal(await canConnect(host, port), true);
    } finally {
      await p.close();
    }
  });

  test('it binds brokerIP2, or haListenHost when set, not every interface', LIMIT, async () => {
    const onIP2 = await startPair({ brokerIP2: '127.0.0.2' });
    try {
      await fill(onIP2.master);
      const { host, port } = haPortOf(onIP2.master);
      assert.equal(host, '127.0.0.2');
      assert.ok((await probe('127.0.0.2', port, ZERO_REPORT)).received > 0, 'served on brokerIP2');
      assert.equal((await probe('127.0.0.1', port, ZERO_REPORT)).refused, true, 'not on 127.0.0.1');
    } finally {
      await onIP2.close();
    }
    const onHost = await startPair({ haListenHost: '127.0.0.3' });
    try {
      await fill(onHost.master);
      const port = haPortOf(onHost.master).port;
      assert.ok((await probe('127.0.0.3', port, ZERO_REPORT)).received > 0, 'served on haListenHost');
      assert.equal((await probe('127.0.0.1', port, ZERO_REPORT)).refused, true, 'not on brokerIP2');
    } finally {
      await onHost.close();
    }
  });
});

test(
  "a brokerIP2 that is not this host's stops the start with a line naming haListenHost",
  LIMIT,
  async () => {
    const broker = createBroker({
      config: {
        listenPort: await freeBrokerPort(),
        listenHost: '127.0.0.1',
        brokerIP1: '127.0.0.1',
        // TEST-NET-1 (RFC 5737): on no interface.
        brokerIP2: '192.0.2.1',
        totalReplicas: 2,
        storePathRootDir: join(dir, 'not-mine'),
      },
      logger: quiet,
    });
    await assert.rejects(broker.start(), /HA port 192\.0\.2\.1:\d+ cannot listen .*haListenHost/);
    await broker.shutdown();
  },
);

describe('with ACL on', () => {
  let pair: HAPair | undefined;
  let home = '';
  const scope = 'broker-ha';
  const hs = (
    account: { accessKey: string; secretKey: string },
    timestamp = Date.now(),
    nonce = randomBytes(16),
  ) => Buffer.concat([encodeHandshake(account, scope, timestamp, nonce), ZERO_REPORT]);

  after(async () => {
    await pair?.close();
  });

  test('only a signed handshake of an admin account without per-topic limits is served', LIMIT, async () => {
    home = aclHome();
    pair = await startPair({ aclEnable: true, rocketmqHome: home, haAuthMaxSkewMillis: 30_000 });
    await fill(pair.master);
    const { host, port } = haPortOf(pair.master);
    const refusedWith = async (what: string, payload: Buffer) => {
      const got = await probe(host, port, payload);
      assert.equal(got.refused, false, `${what}: the port is open`);
      assert.equal(got.received, 0, `${what}: no byte may come back`);
    };
    await refusedWith('8 zero bytes', ZERO_REPORT);
    await refusedWith('wrong secret', hs({ accessKey: ADMIN.accessKey, secretKey: 'notTheSecret' }));
    await refusedWith('unknown account', hs({ accessKey: 'nobodyHere', secretKey: ADMIN.secretKey }));
    await refusedWith('not admin', hs({ accessKey: 'plainUser', secretKey: 'plainSecret' }));
    await refusedWith('admin with a DENY', hs({ accessKey: 'limitedAdmin', secretKey: 'limitedSecret' }));
    await refusedWith('stale', hs(ADMIN, Date.now() - 120_000));
    await refusedWith('from the future', hs(ADMIN, Date.now() + 120_000));
    await refusedWith(
      'another broker group',
      Buffer.concat([encodeHandshake(ADMIN, 'other', Date.now(), randomBytes(16)), ZERO_REPORT]),
    );
    const once = hs(ADMIN);
    const first = await probe(host, port, once);
    assert.ok(first.received > 0, 'the right handshake is served');
    await refusedWith('replayed', once);
  });

  test(
    'our slave with an admin account replicates; one without credentials cannot start',
    LIMIT,
    async () => {
      assert.ok(pair !== undefined);
      await assert.rejects(
        pair.startSlave({ aclEnable: true, rocketmqHome: home }),
        /innerClientAuthenticationCredentials/,
      );
      const slave = await pair.startSlave({
        aclEnable: true,
        rocketmqHome: home,
        innerClientAuthenticationCredentials: JSON.stringify(ADMIN),
      });
      await caughtUp(pair.master, slave);
      await fill(pair.master, 5);
      await caughtUp(pair.master, slave);
      assertSameCommitLog(pair.master, slave);
    },
  );
});

describe('with TLS enforcing', () => {
  test('plaintext HA gets nothing; our slave over TLS replicates', LIMIT, async () => {
    const tls = { tls: { tlsMode: 'enforcing' as const } };
    const p = await startPair({}, tls);
    try {
      await fill(p.master);
      const { host, port } = haPortOf(p.master);
      const got = await probe(host, port, ZERO_REPORT);
      assert.equal(got.refused, false);
      assert.equal(got.received, 0, 'a plaintext report gets no commit-log byte');
      const slave = await p.startSlave({}, undefined, tls);
      await caughtUp(p.master, slave);
      assertSameCommitLog(p.master, slave);
    } finally {
      await p.close();
    }
  });
});
