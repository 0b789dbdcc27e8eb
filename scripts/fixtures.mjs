#!/usr/bin/env node
// Regenerates test/fixtures/golden from the official Apache RocketMQ 4.9.8 classes
// (interop/src/main/java/org/rocketmqts/interop/golden/GoldenFixtures.java).
//   node scripts/fixtures.mjs           rebuild interop/ if needed, regenerate, replace the folder
//   node scripts/fixtures.mjs --check   regenerate into a temp folder and fail if it differs
// The generator runs with TZ=UTC, -Duser.timezone=UTC and -Drocketmq.remoting.version=409 and a
// temp user.home, so its output is byte-for-byte reproducible and nothing lands in $HOME.

import { mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { listFiles, prepare, ROOT, run } from './interop-prepare.mjs';

const GOLDEN_DIR = join(ROOT, 'test', 'fixtures', 'golden');
const GENERATOR = 'org.rocketmqts.interop.golden.GoldenFixtures';
const TIMEOUT_MS = 120_000;

/** The manifest records the JDK build; a different patch release alone is not staleness. */
function sameManifest(x, y) {
  const strip = (buf) => {
    const m = JSON.parse(buf.toString('utf8'));
    delete m.jdk;
    return JSON.stringify(m);
  };
  return strip(x) === strip(y);
}

/** Lists paths that differ between two fixture trees (missing on either side or different bytes). */
function diffTrees(a, b) {
  const rel = (root) => new Set(listFiles(root).map((f) => relative(root, f)));
  const left = rel(a);
  const right = rel(b);
  const diffs = [];
  for (const f of new Set([...left, ...right])) {
    if (!left.has(f) || !right.has(f)) diffs.push(f);
    else {
      const x = readFileSync(join(a, f));
      const y = readFileSync(join(b, f));
      const same = f === 'manifest.json' ? sameManifest(x, y) : x.equals(y);
      if (!same) diffs.push(f);
    }
  }
  return diffs.sort();
}

async function generate(outDir, env) {
  const { classpath, javaOpts } = await prepare();
  const home = mkdtempSync(join(tmpdir(), 'rmq-fixtures-home-'));
  try {
    const args = [
      ...javaOpts,
      '-Duser.timezone=UTC',
      '-Drocketmq.remoting.version=409',
      `-Duser.home=${home}`,
      '-Dfile.encoding=UTF-8',
      '-cp',
      classpath,
      GENERATOR,
      outDir,
    ];
    const r = await run('java', args, { timeoutMs: TIMEOUT_MS, env, what: GENERATOR });
    if (r.code !== 0) {
      throw new Error(`${GENERATOR} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
    }
    process.stderr.write(r.stdout);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function main() {
  const check = process.argv.includes('--check');
  const env = { ...process.env, TZ: 'UTC', LC_ALL: 'C.UTF-8' };
  const scratch = mkdtempSync(join(join(ROOT, 'test', 'fixtures'), '.golden-tmp-'));
  try {
    const started = Date.now();
    await generate(scratch, env);
    if (check) {
      const diffs = diffTrees(GOLDEN_DIR, scratch);
      if (diffs.length > 0) {
        throw new Error(`test/fixtures/golden is stale; differing files:\n  ${diffs.join('\n  ')}`);
      }
      process.stderr.write(`fixtures: test/fixtures/golden is up to date (${Date.now() - started} ms)\n`);
      return;
    }
    rmSync(GOLDEN_DIR, { recursive: true, force: true });
    renameSync(scratch, GOLDEN_DIR);
    const count = listFiles(GOLDEN_DIR).length;
    const bytes = listFiles(GOLDEN_DIR).reduce((n, f) => n + statSync(f).size, 0);
    process.stderr.write(`fixtures: wrote ${count} files (${bytes} bytes) in ${Date.now() - started} ms\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`fixtures: ${err.message}\n`);
  process.exit(1);
});
