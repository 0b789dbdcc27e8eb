/** Golden fixture files (the official Java code's bytes) used as fuzz seeds. */
import { readdirSync } from 'node:fs';
import { GOLDEN_DIR, goldenFile } from '../golden-fixtures.js';

/** Paths relative to the golden directory, e.g. `goldenFiles('messages/', '.bin')`, sorted. */
export function goldenFiles(folder: string, suffix: string): string[] {
  return readdirSync(new URL(folder, GOLDEN_DIR))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => `${folder}${f}`);
}

export function goldenSeeds(folder: string, suffix: string): Buffer[] {
  return goldenFiles(folder, suffix).map((f) => goldenFile(f));
}
