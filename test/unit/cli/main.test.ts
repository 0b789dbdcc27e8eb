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

test('commands that are not built yet say so and fail', async () => {
  const err: string[] = [];
  const code = await main(['start'], { out: () => undefined, err: (t) => err.push(t) });
  assert.equal(code, 1);
  assert.match(err.join(''), /not yet/);
});
