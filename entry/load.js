// Loads one entry point of the build for the files beside it (package.json `exports` names them).
// They exist so that a package installed without its build (npm's --ignore-scripts, a tarball packed
// without it) says in one line how to build it, where importing build/ directly would end in an
// ERR_MODULE_NOT_FOUND stack. scripts/entries.mjs writes the others after each build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The namespace of build/src/<entry>, or one line on stderr and exit code 1 when it is not built. */
export async function load(entry) {
  const url = new URL(`../build/src/${entry}`, import.meta.url);
  if (!existsSync(url)) {
    const root = fileURLToPath(new URL('..', import.meta.url));
    process.stderr.write(`rocketmq-ts is not built: run \`npm install && npm run build\` in ${root}\n`);
    process.exit(1);
  }
  return import(url.href);
}
