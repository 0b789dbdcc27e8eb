/**
 * Imports one of the package's entry points (`rocketmq-ts`, `rocketmq-ts/client`, ...) in a fresh
 * node process, from the repository itself (package self-reference, so `exports` applies), and
 * reports every module URL the import resolved and how long the import took. A module loader hook
 * (module.register) records each resolved URL into a file; the hook runs on its own thread.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root: the nearest directory above this (compiled) file that holds package.json. */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

const HOOKS = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(out, resolved.url + '\\n');
  return resolved;
}
`;

export interface ImportProbe {
  /** Every URL the import resolved, in order (node: builtins included). */
  readonly urls: readonly string[];
  /** Wall time of the dynamic import() alone, ms. */
  readonly importMs: number;
}

/**
 * Imports `specifier` in a child process started in the repository root; `record: false` skips the
 * hook (an empty `urls`), for timing the import alone.
 */
export async function probeImport(specifier: string, { record = true } = {}): Promise<ImportProbe> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-import-'));
  try {
    const out = join(dir, 'urls.txt');
    writeFileSync(out, '');
    writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)}, { data: { out: ${JSON.stringify(out)} } });\n`,
    );
    // The importing module must sit inside the package for the self-reference to resolve.
    const script = `const t0 = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t0));`;
    const { stdout } = await run(
      process.execPath,
      [
        ...(record ? ['--import', pathToFileURL(join(dir, 'register.mjs')).href] : []),
        '--input-type=module',
        '-e',
        script,
      ],
      { cwd: repoRoot },
    );
    const urls = readFileSync(out, 'utf8').split('\n').filter(Boolean);
    return { urls, importMs: Number(stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The entry points package.json exports, by specifier. */
export const ENTRY_POINTS = [
  'rocketmq-ts',
  'rocketmq-ts/client',
  'rocketmq-ts/admin',
  'rocketmq-ts/server',
] as const;

/** The URLs among `urls` that lie under build/src/<folder>/ for one of `folders`. */
export function modulesUnder(urls: readonly string[], folders: readonly string[]): string[] {
  return urls.filter((u) => folders.some((f) => u.includes(`/build/src/${f}/`)));
}
