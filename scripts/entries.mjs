#!/usr/bin/env node
// Writes entry/<name>.js for each entry point of the package from the build (scripts/build.mjs runs
// it after tsc): each re-exports by name what build/src/<file> exports, through entry/load.js, which
// fails in one line when the build is missing. Named because ES modules cannot re-export a
// namespace they load conditionally. A file is rewritten only when its names changed; commit it then.
//
//   node scripts/entries.mjs [--check]   (--check: exit 1 when a file differs, write nothing)

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** entry/<name>.js loads build/src/<file>. */
export const ENTRIES = {
  index: 'index.js',
  client: 'client/index.js',
  admin: 'admin/index.js',
  server: 'server.js',
};

/** The text of entry/<name>.js for the names `file` exports. */
function stub(file, names) {
  const lines = [];
  let line = ' ';
  for (const name of names) {
    if (line.length + name.length + 2 > 98) {
      lines.push(line.trimEnd());
      line = ' ';
    }
    line += ` ${name},`;
  }
  lines.push(line.trimEnd());
  return `// Written by scripts/entries.mjs from build/src/${file}: do not edit.\nimport { load } from './load.js';\n\nexport const {\n${lines.join('\n')}\n} = await load('${file}');\n`;
}

const check = process.argv.includes('--check');
let stale = 0;
for (const [name, file] of Object.entries(ENTRIES)) {
  const built = join(root, 'build', 'src', file);
  if (!existsSync(built)) {
    process.stderr.write(`entries: ${built} not found: run tsc first\n`);
    process.exit(1);
  }
  const names = Object.keys(await import(pathToFileURL(built).href)).sort();
  const target = join(root, 'entry', `${name}.js`);
  const text = stub(file, names);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === text) continue;
  stale++;
  if (check) process.stderr.write(`entries: entry/${name}.js does not match build/src/${file}\n`);
  else writeFileSync(target, text);
}
if (check && stale > 0) process.exit(1);
