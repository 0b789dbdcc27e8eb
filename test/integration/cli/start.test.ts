/** `rmq start` and `rmq broker` as a user runs them: child processes that listen, register, and stop on SIGTERM. */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodeClusterInfo } from '../../../src/common/protocol/route.js';
import { createNamesrv } from '../../../src/namesrv/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

const bin = fileURLToPath(new URL('../../../../bin/rmq.js', import.meta.url));

interface Child {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
}

/** Spawns `rmq <args>` and resolves once stdout matches `ready`. */
async function run(args: string[], ready: RegExp): Promise<Child & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = ready.exec(stdout);
      if (m !== null) resolve(m);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, match, stdout: () => stdout, stderr: () => stderr };
}

/** SIGTERM, then the exit code (or the signal's name if the process died of it). */
async function stop(child: ChildProcessWithoutNullStreams): Promise<number | string | null> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code, signal] = (await exited) as [number | null, string | null];
  return code ?? signal;
}

async function clusterBrokers(client: RemotingClient, namesrvAddr: string): Promise<string[]> {
  const reply = await client.invoke(namesrvAddr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), {
    timeoutMs: 5000,
  });
  assert.equal(reply.code, ResponseCode.SUCCESS);
  return [...decodeClusterInfo(reply.body).brokerAddrTable.values()].flatMap((b) => [
    ...b.brokerAddrs.values(),
  ]);
}

test('rmq start: both listen, the broker is registered, SIGTERM shuts down cleanly', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-start-'));
  const client = new RemotingClient();
  try {
    const conf = join(dir, 'broker.conf');
    writeFileSync(conf, 'brokerName=broker-cli\nbrokerClusterName=CliCluster\nnoSuchKey=1\n');
    const data = join(dir, 'data');
    const { child, match, stderr } = await run(
      [
        'start',
        '-c',
        conf,
        '-d',
        data,
        '--namesrv-port',
        '0',
        '--broker-port',
        '0',
        '--host',
        '127.0.0.1',
        '--broker-ip',
        '127.0.0.1',
        // The form the help text shows for "off": a negative number as a separate argument.
        '--dashboard-port',
        '-1',
      ],
      /name server\s+(\S+)\n\s+broker\s+(\S+) \(cluster CliCluster, name broker-cli\)/,
    );
    const [, namesrvAddr = '', brokerAddr = ''] = match;
    assert.match(stderr(), /unknown broker config key ignored.*noSuchKey/);
    assert.deepEqual(await clusterBrokers(client, namesrvAddr), [brokerAddr]);
    assert.equal(existsSync(join(data, 'abort')), true, 'a running store has its abort file');
    assert.equal(await stop(child), 0);
    assert.equal(existsSync(join(data, 'abort')), false, 'a clean shutdown removes the abort file');
    assert.equal(existsSync(join(data, 'checkpoint')), true);
    // Offsets are written on shutdown; topics.json only when a topic changes, as upstream.
    assert.match(readFileSync(join(data, 'config', 'consumerOffset.json'), 'utf8'), /"offsetTable"/);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rmq broker -c broker.conf -n addr registers with a name server and unregisters on SIGTERM', {
  timeout: 60_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-broker-'));
  const namesrv = createNamesrv({ listenPort: 0, kvConfigPath: join(dir, 'kv.json') });
  const client = new RemotingClient();
  try {
    const ns = await namesrv.start();
    const namesrvAddr = `127.0.0.1:${ns.port}`;
    const conf = join(dir, 'broker.conf');
    writeFileSync(
      conf,
      `brokerName=broker-solo\nlistenPort=0\nbrokerIP1=127.0.0.1\nstorePathRootDir=${join(dir, 'store')}\n`,
    );
    const { child, match, stderr } = await run(
      ['broker', '-c', conf, '-n', namesrvAddr, '--host', '127.0.0.1'],
      /The broker\[broker-solo, (\S+)\] boot success/,
    );
    assert.deepEqual(await clusterBrokers(client, namesrvAddr), [match[1]]);
    assert.equal(await stop(child), 0, stderr());
    assert.deepEqual(await clusterBrokers(client, namesrvAddr), []);
  } finally {
    await client.close();
    await namesrv.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rmq broker with a bad config value exits 1 naming the key', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-broker-bad-'));
  try {
    const conf = join(dir, 'broker.conf');
    writeFileSync(conf, 'listenPort=abc\n');
    const child = spawn(process.execPath, [bin, 'broker', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(stderr, /listenPort/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rmq start on a port in use says which and how to pick another', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-busy-'));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  try {
    const port = (blocker.address() as AddressInfo).port;
    const child = spawn(
      process.execPath,
      [bin, 'start', '-d', join(dir, 'data'), '--namesrv-port', String(port), '--host', '127.0.0.1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1);
    assert.match(
      stderr,
      new RegExp(
        `^rmq start: port ${port} \\(name server\\) is already in use; pick another with --namesrv-port`,
      ),
    );
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
