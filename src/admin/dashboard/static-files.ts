/**
 * The front end: plain files of the package's web/dashboard folder, read once and served as they are
 * (no build step at run time). Only names in the folder are served; nothing outside it can be named.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * web/dashboard of the package: found by walking up from this module, so it works from build/src,
 * from the bundled CLI in build/bundle and from any other output directory inside the package.
 */
export function defaultStaticDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'web', 'dashboard');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('web/dashboard not found above the dashboard module');
    dir = parent;
  }
}

export interface StaticFile {
  body: Buffer;
  type: string;
}

/** URL path (`/`, `/app.js`) -> file, for every file of the folder and its subfolders. */
export function loadStaticFiles(root: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) {
        walk(full, `${prefix}${name}/`);
        continue;
      }
      const type = TYPES[extname(name)];
      if (type === undefined) continue;
      files.set(`${prefix}${name}`, { body: readFileSync(full), type });
    }
  };
  walk(root, '/');
  const index = files.get('/index.html');
  if (index !== undefined) files.set('/', index);
  return files;
}
