#!/usr/bin/env node
// The build (`npm run build`, and npm's `prepare` and `prepack`): a clean tsc of src, test and
// scripts into build/, then the CLI bundle (scripts/bundle-cli.mjs) and the entry files
// (scripts/entries.mjs). It does nothing when the build
// is newer than every input, because npm runs it more than once in one command: `npm test` runs
// `npm ci` (whose `prepare` builds) and then builds again; installing from git runs `prepare` and
// then packs (`prepack`). Newer means by modification time of every file and directory under the
// inputs: an edited, added, removed or renamed source all touch one. `--force` always builds.
//
//   node scripts/build.mjs [--force]

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = join(root, 'build');
// Written last, so an interrupted build is never taken for a complete one.
const stamp = join(buildDir, '.build-stamp');
const INPUT_DIRS = ['src', 'test', 'scripts'];
const INPUT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];
// Data the tests read from the source tree, not compiled: skipped to keep the check fast.
const SKIP = new Set([join(root, 'test', 'fixtures')]);

/** The newest modification time under `path` (itself included), in milliseconds. */
function newest(path) {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return 0;
  let latest = st.mtimeMs;
  if (st.isDirectory() && !SKIP.has(path)) {
    for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  }
  return latest;
}

function upToDate() {
  const built = statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  const inputs = [...INPUT_DIRS, ...INPUT_FILES].map((p) => newest(join(root, p)));
  return Math.max(...inputs) <= built;
}

function run(args) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!process.argv.includes('--force') && upToDate()) {
  process.stdout.write('build: up to date (node scripts/build.mjs --force rebuilds)\n');
  process.exit(0);
}

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write(
    'build: typescript is not installed here: run `npm install` (with dev dependencies) first\n',
  );
  process.exit(1);
}
// A clean build: a source removed since the last one must not leave its compiled test behind.
rmSync(buildDir, { recursive: true, force: true });
run([tsc, '-p', 'tsconfig.json']);
run([join(root, 'scripts', 'bundle-cli.mjs'), buildDir]);
run([join(root, 'scripts', 'entries.mjs')]);
if (!existsSync(join(buildDir, 'src', 'index.js'))) {
  process.stderr.write('build: tsc wrote no build/src/index.js\n');
  process.exit(1);
}
writeFileSync(stamp, `${new Date().toISOString()}\n`);
