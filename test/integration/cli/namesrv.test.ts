/** `rmq namesrv` as a user runs it: a child process that listens, answers, and stops on SIGTERM. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodeClusterInfo } from '../../../src/common/protocol/route.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

const bin = fileURLToPath(new URL('../../../../bin/rmq.js', import.meta.url));

test('rmq namesrv -c conf -p 0 boots, answers, and exits 0 on SIGTERM', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-namesrv-'));
  const client = new RemotingClient();
  try {
    const conf = join(dir, 'namesrv.conf');
    writeFileSync(conf, `listenPort=9876\nkvConfigPath=${join(dir, 'kv.json')}\nnoSuchKey=1\n`);
    const child = spawn(process.execPath, [bin, 'namesrv', '-c', conf, '-p', '0', '--host', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const address = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /boot success\. address=(\S+)/.exec(stdout);
        if (m?.[1] !== undefined) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    assert.match(stderr, /unknown key in namesrv config ignored.*noSuchKey/);
    const reply = await client.invoke(address, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), {
      timeoutMs: 5000,
    });
    assert.equal(reply.code, ResponseCode.SUCCESS);
    assert.equal(decodeClusterInfo(reply.body).brokerAddrTable.size, 0);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
