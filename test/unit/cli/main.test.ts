import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { main } from '../../../src/cli/main.js';

const bin = fileURLToPath(new URL('../../../../bin/rmq.js', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

test('rmq --version prints the package version', () => {
  assert.equal(
    execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }),
    `rmq ${pkg.version}\n`,
  );
});

test('rmq --help prints usage and exits 0', () => {
  const out = execFileSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  assert.match(out, /^Usage: rmq <command>/);
});

test('an unknown command fails with exit code 2 and names the command', () => {
  const run = spawnSync(process.execPath, [bin, 'frobnicate'], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /unknown command "frobnicate"/);
});

test('each server command prints its own help', async () => {
  for (const [command, usage] of [
    ['start', /Usage: rmq start/],
    ['broker', /Usage: rmq broker/],
    ['namesrv', /Usage: rmq namesrv/],
  ] as const) {
    const out: string[] = [];
    const code = await main([command, '--help'], { out: (t) => out.push(t), err: () => undefined });
    assert.equal(code, 0);
    assert.match(out.join(''), usage);
  }
});

test('a bad flag is refused before anything starts', async () => {
  await assert.rejects(
    main(['start', '--no-such-flag'], { out: () => undefined, err: () => undefined }),
    /no-such-flag/,
  );
  await assert.rejects(
    main(['broker', '--port', 'x'], { out: () => undefined, err: () => undefined }),
    /--port: not a port: x/,
  );
});
