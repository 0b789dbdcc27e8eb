/**
 * The package's entry points by role (package.json `exports`): `rocketmq-ts/client` and
 * `rocketmq-ts/admin` load no broker, store or name server module; `rocketmq-ts` has every name of
 * the three others; nothing deeper is importable. Prints each entry's import time.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ENTRY_POINTS, modulesUnder, probeImport, repoRoot } from '../../helpers/import-probe.js';

const SERVER_FOLDERS = ['broker', 'store', 'namesrv', 'embedded'];

for (const entry of ['rocketmq-ts/client', 'rocketmq-ts/admin']) {
  test(`${entry} loads no broker, store or name server module`, async (t) => {
    const { urls, importMs } = await probeImport(entry);
    t.diagnostic(`import ${entry}: ${importMs.toFixed(0)} ms, ${new Set(urls).size} modules`);
    assert.ok(
      urls.some((u) => u.includes('/build/src/client/')),
      'the probe recorded no client module: the hook did not run',
    );
    assert.deepEqual(modulesUnder(urls, SERVER_FOLDERS), []);
  });
}

test('rocketmq-ts/server loads the broker and the name server; rocketmq-ts loads everything', async (t) => {
  for (const entry of ['rocketmq-ts/server', 'rocketmq-ts']) {
    const { urls, importMs } = await probeImport(entry);
    t.diagnostic(`import ${entry}: ${importMs.toFixed(0)} ms, ${new Set(urls).size} modules`);
    assert.notDeepEqual(modulesUnder(urls, ['broker']), [], `${entry} loaded no broker module`);
    assert.notDeepEqual(modulesUnder(urls, ['namesrv']), [], `${entry} loaded no name server module`);
  }
});

test('rocketmq-ts exports every name of rocketmq-ts/client, /admin and /server', async () => {
  const all = await import('rocketmq-ts');
  for (const entry of ENTRY_POINTS.slice(1)) {
    const part: Record<string, unknown> = await import(entry);
    const missing = Object.keys(part).filter((name) => !(name in all));
    assert.deepEqual(missing, [], `${entry} names missing from rocketmq-ts`);
    for (const name of Object.keys(part)) assert.equal(all[name as keyof typeof all], part[name], name);
  }
});

test('package.json exports exactly the four entries, each with its types, and blocks deep imports', async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types: string; default: string }>;
  };
  const entries = Object.keys(pkg.exports).filter((k) => k !== './package.json');
  assert.deepEqual(
    entries.map((k) => (k === '.' ? 'rocketmq-ts' : `rocketmq-ts/${k.slice(2)}`)),
    [...ENTRY_POINTS],
  );
  for (const k of entries) {
    const target = pkg.exports[k];
    assert.ok(typeof target === 'object', k);
    assert.match(target.types, /\.d\.ts$/, k);
    assert.equal(target.types.replace(/\.d\.ts$/, '.js'), target.default, k);
  }
  await assert.rejects(import('rocketmq-ts/build/src/broker/index.js' as string), {
    code: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});
