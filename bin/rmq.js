#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled package (npm run build, or npm start which builds).
// It runs the bundle of the CLI (scripts/bundle-cli.mjs: one file to load instead of 330 modules,
// which is most of `rmq start`'s start-up) unless tsc wrote the CLI after the bundle was made, so a
// stale bundle never runs.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../build/src/cli/main.js', import.meta.url);
const bundled = new URL('../build/bundle/cli/main.js', import.meta.url);
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs;
const bundledAt = mtime(bundled);
const compiledAt = mtime(compiled);
if (bundledAt === undefined && compiledAt === undefined) {
  // An install that skipped the build (npm's --ignore-scripts, or a tarball packed without it).
  const root = fileURLToPath(new URL('..', import.meta.url));
  process.stderr.write(`rmq: rocketmq-ts is not built: run \`npm install && npm run build\` in ${root}\n`);
  process.exit(1);
}
const useBundle = bundledAt !== undefined && !(compiledAt !== undefined && compiledAt > bundledAt);
const { main } = await import(useBundle ? bundled.href : compiled.href);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`rmq: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
