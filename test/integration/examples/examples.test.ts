/**
 * Every script in examples/ runs as a user runs it (`node examples/<name>.mjs`, importing the package
 * by its name) against a real name server and broker, and must exit 0 by itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEV_PROFILE } from '../../../src/cli/dev-profile.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Standalone, startStandalone } from '../../../src/embedded/standalone.js';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'examples'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
}

const root = repoRoot();
const examples = readdirSync(join(root, 'examples'))
  .filter((f) => f.endsWith('.mjs'))
  .sort();
const EXAMPLE_DEADLINE_MS = 60_000;

function run(file: string, namesrvAddr: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join('examples', file)], {
      cwd: root,
      env: { ...process.env, NAMESRV_ADDR: namesrvAddr, RMQ_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), EXAMPLE_DEADLINE_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('examples/', () => {
  let pair: Standalone;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmq-examples-'));
    pair = await startStandalone({
      dataDir: dir,
      namesrvPort: 0,
      host: '127.0.0.1',
      // The settings `npm start` (rmq start) runs with, which the examples are written against.
      broker: { ...DEV_PROFILE, listenPort: 0, brokerIP1: '127.0.0.1', brokerName: 'broker-examples' },
      logger: createLogger('examples', { level: 'error' }),
    });
  });

  after(async () => {
    await pair?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('there are examples to run', () => {
    assert.ok(examples.includes('produce.mjs'), `examples found: ${examples.join(', ')}`);
  });

  for (const file of examples) {
    test(`node examples/${file} exits 0 by itself`, { timeout: EXAMPLE_DEADLINE_MS + 10_000 }, async () => {
      const { code, output } = await run(file, pair.namesrvAddr);
      assert.equal(code, 0, `examples/${file} exited ${String(code)}:\n${output}`);
    });
  }
});
