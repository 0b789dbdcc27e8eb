/**
 * Where `rmq start` listens (issue 26): without `--host`, the name server, the broker and its VIP
 * channel are bound to 127.0.0.1 only (a connection to the machine's other address is refused); with
 * `--host`, on the address named. `rmq broker` / `rmq namesrv` keep upstream's every interface.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFromArgs } from '../../../src/cli/start-command.js';
import type { Standalone } from '../../../src/embedded/standalone.js';

const LIMIT = { timeout: 60_000 };
const io = { out: () => {}, err: () => {} };

/** A non-loopback IPv4 address of this machine, when it has one. */
function otherAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

function listening(pair: Standalone): string[] {
  const servers = [
    pair.namesrv.address,
    pair.broker.remotingServer.address,
    pair.broker.fastRemotingServer.address,
  ];
  return servers.map((a) => a?.host ?? 'none');
}

/** 'connected' or the error code of a TCP connect to host:port. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

async function withStart(extra: string[], check: (pair: Standalone) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-start-listen-'));
  const args = ['-d', join(dir, 'data'), '--namesrv-port', '0', '--broker-port', '0', '--dashboard-port=-1'];
  const pair = await startFromArgs([...args, ...extra], io);
  try {
    await check(pair);
  } finally {
    await pair.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('rmq start listens on 127.0.0.1 only by default', LIMIT, async () => {
  await withStart([], async (pair) => {
    assert.deepEqual(listening(pair), ['127.0.0.1', '127.0.0.1', '127.0.0.1']);
    const other = otherAddress();
    if (other !== undefined) {
      const port = pair.namesrv.address?.port ?? 0;
      assert.equal(await tryConnect(other, port), 'ECONNREFUSED', `name server reached on ${other}`);
      assert.equal(await tryConnect('127.0.0.1', port), 'connected');
    }
  });
});

test('rmq start --host <address> listens there', LIMIT, async () => {
  const host = otherAddress() ?? '0.0.0.0';
  await withStart(['--host', host], async (pair) => {
    assert.deepEqual(listening(pair), [host, host, host]);
    assert.equal(
      await tryConnect(host === '0.0.0.0' ? '127.0.0.1' : host, pair.namesrv.address?.port ?? 0),
      'connected',
    );
  });
});
