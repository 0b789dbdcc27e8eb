/**
 * `rmq dashboard`: started against a name server it serves the page and the API on the port given
 * (127.0.0.1 by default); a bad command line is a usage line and exit code 2; a busy port is one line
 * naming the port and the flag, exit code 1.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { startDashboardFromArgs } from '../../../src/cli/dashboard-command.js';
import { CliExitError } from '../../../src/cli/io.js';
import { main } from '../../../src/cli/main.js';
import { startCluster, type TestCluster } from '../client/support.js';

let cluster: TestCluster;

before(async () => {
  cluster = await startCluster();
});

after(async () => {
  await cluster?.close();
});

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

test('rmq dashboard -n serves the page and the API on 127.0.0.1', async () => {
  const { io, out } = capture();
  const running = await startDashboardFromArgs(['-n', cluster.namesrvAddr, '--port', '0'], io, {});
  try {
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out.join(''))?.[0] ?? assert.fail(out.join(''));
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const clusterInfo = (await (await fetch(`${url}api/cluster`)).json()) as {
      brokers: Array<{ brokerName: string }>;
    };
    assert.equal(clusterInfo.brokers[0]?.brokerName, 'broker-a');
  } finally {
    await running.shutdown();
  }
});

test('bad command lines: usage and exit code 2', async () => {
  for (const argv of [
    ['--bogus'],
    ['-n', cluster.namesrvAddr, '--port', 'x'],
    ['--access-key', 'a', '-n', 'h:1'],
  ]) {
    await assert.rejects(startDashboardFromArgs(argv, capture().io, {}), (e: unknown) => {
      assert.ok(e instanceof CliExitError && e.exitCode === 2, String(e));
      assert.match(e.message, /Usage: rmq dashboard/);
      return true;
    });
  }
  await assert.rejects(startDashboardFromArgs([], capture().io, {}), /no name server/);
  const { io, out } = capture();
  assert.equal(await main(['dashboard', '--help'], io), 0);
  assert.match(out.join(''), /Usage: rmq dashboard/);
});

test('a busy port is one line naming it and --port, exit code 1', async () => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as { port: number }).port;
  try {
    await assert.rejects(
      startDashboardFromArgs(['-n', cluster.namesrvAddr, '--port', String(port)], capture().io, {}),
      (e: unknown) => {
        assert.ok(e instanceof CliExitError && e.exitCode === 1, String(e));
        assert.match(e.message, new RegExp(`port ${port} .*--port`));
        return true;
      },
    );
  } finally {
    busy.close();
  }
});
