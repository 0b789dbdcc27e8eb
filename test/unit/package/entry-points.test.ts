/**
 * The package's entry points by role (package.json `exports`): `rocketmq-ts/client` and
 * `rocketmq-ts/admin` load no broker, store or name server module; `rocketmq-ts` has every name of
 * the three others; nothing deeper is importable. Prints each entry's import time.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
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
    assert.match(target.types, /^\.\/build\/src\/.*\.d\.ts$/, k);
    assert.match(target.default, /^\.\/entry\/\w+\.js$/, k);
  }
  await assert.rejects(import('rocketmq-ts/build/src/broker/index.js' as string), {
    code: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
  });
});

test('entry/*.js re-export exactly what the build exports (scripts/entries.mjs --check)', async () => {
  const check = promisify(execFile)(process.execPath, [join(repoRoot, 'scripts', 'entries.mjs'), '--check']);
  await check.catch((err: { stderr?: string }) => {
    assert.fail(`${err.stderr ?? err}\nrun node scripts/entries.mjs (npm run build does) and commit entry/`);
  });
});

test('importing an entry of a package without its build fails in one line saying how to build it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-unbuilt-'));
  try {
    const pkg = join(dir, 'node_modules', 'rocketmq-ts');
    mkdirSync(pkg, { recursive: true });
    cpSync(join(repoRoot, 'package.json'), join(pkg, 'package.json'));
    cpSync(join(repoRoot, 'entry'), join(pkg, 'entry'), { recursive: true });
    for (const entry of ENTRY_POINTS) {
      const run = promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', `await import('${entry}');`],
        {
          cwd: dir,
        },
      );
      const err = await run.then(
        () => assert.fail(`${entry} imported without a build`),
        (e: { code?: number; stderr?: string }) => e,
      );
      assert.equal(err.code, 1, entry);
      const lines = (err.stderr ?? '').trim().split('\n');
      assert.equal(lines.length, 1, `${entry}: ${err.stderr}`);
      assert.match(lines[0] ?? '', /rocketmq-ts is not built: run `npm install && npm run build` in /);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
