#!/usr/bin/env node
// Bundles the compiled `rmq` command (<build>/src/cli/main.js, from tsc) into a few files in
// <build>/bundle/cli/, which bin/rmq.js runs. Why: Node 20 loads ES modules one file at a time
// (resolve, stat, an asynchronous read through the thread pool, compile, link, evaluate), and
// `rmq start` is 330 modules: 0.32 s of CPU from spawn to accepting connections, against 0.11 s
// bundled and 0.06 s for a bare `node` that only listens (measured on the 2-core development
// machine). Library users import build/src as before; only the command line runs the bundle.
//
//   node scripts/bundle-cli.mjs [buildDir]    (default: build; npm run build runs it after tsc)
//
// Layout: every file lands in one flat directory, so the CRC worker that store/crc-ahead.ts starts
// with `new URL('./commit-log-crc-worker.js', import.meta.url)` sits next to the code that names it,
// and main.js keeps the depth from which `rmq --version` finds package.json ('../../../').
// `rmq bench` stays a chunk of its own, loaded on demand as in the unbundled build. Packages from
// node_modules are not bundled (they resolve from the bundle's directory as from build/src).

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const buildDir = resolve(process.argv[2] ?? 'build');
const main = join(buildDir, 'src', 'cli', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(`bundle-cli: ${main} not found: run tsc first\n`);
  process.exit(1);
}

await build({
  entryPoints: {
    main,
    'commit-log-crc-worker': join(buildDir, 'src', 'store', 'commit-log-crc-worker.js'),
  },
  outdir: join(buildDir, 'bundle', 'cli'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Chained to tsc's maps, so `node --enable-source-maps` shows the TypeScript lines.
  sourcemap: 'linked',
  logLevel: 'warning',
});
