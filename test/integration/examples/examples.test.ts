/**
 * Every script in examples/ runs as a user runs it (`node examples/<name>.mjs`, importing the package
 * by its name) against a real name server and broker, and must exit 0 by itself.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEV_PROFILE } from '../../../src/cli/dev-profile.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Standalone, startStandalone } from '../../../src/embedded/standalone.js';
import { runScript } from '../../helpers/run-script.js';

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
      const { code, output } = await runScript(
        join('examples', file),
        root,
        pair.namesrvAddr,
        EXAMPLE_DEADLINE_MS,
      );
      assert.equal(code, 0, `examples/${file} exited ${String(code)}:\n${output}`);
    });
  }
});
