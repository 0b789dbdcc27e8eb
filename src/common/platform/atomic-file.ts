/**
 * Writes a config file the way upstream's MixAll.string2File does, made crash-safe: the new content goes
 * to `<file>.tmp` and is flushed to disk, the previous content is kept as `<file>.bak`, and the temp file
 * is renamed over the original (atomic on POSIX), so a reader sees the old file or the new one, never
 * a partial one. The directory is synced after the rename so the new name survives a power loss.
 * Shared by every component that keeps a file of its own (name server KV table, broker metadata, a
 * client's local consumer offsets).
 */
import { copyFile, mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

function isMissing(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'ENOENT';
}

export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await copyFile(file, `${file}.bak`);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  await rename(tmp, file);
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
