/**
 * Reading and writing plain_acl.yml files. A write goes through a temporary file and a rename, so
 * the file watcher never reads half a file, and keeps the file's permission bits (it holds secrets).
 */
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { parseAclYaml, stringifyAclYaml } from '../../acl/plain-acl-yaml.js';

/** Reads one ACL file; undefined when it is missing or empty (upstream skips it with a warning). */
export async function readAclFile(path: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseAclYaml(text, path);
}

/** Replaces the file with the document; a new file is readable by its owner only. */
export async function writeAclFile(path: string, map: Record<string, unknown>): Promise<void> {
  const mode = (await stat(path).catch(() => undefined))?.mode ?? 0o600;
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, stringifyAclYaml(map), { encoding: 'utf8', mode: mode & 0o777 });
  await rename(tmp, path);
}
