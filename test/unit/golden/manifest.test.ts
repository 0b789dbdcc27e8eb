/**
 * The golden directory is exactly what the manifest describes: fixtures from 4.9.8, every listed file
 * present, and no file the manifest does not list (a stray or stale fixture would go untested).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GOLDEN_DIR, goldenManifest } from '../../golden-fixtures.js';

const MANIFEST = 'manifest.json';

function listedFiles(): string[] {
  const m = goldenManifest();
  const files: string[] = [];
  for (const c of m.commands) files.push(c.file);
  for (const r of m.messages.records) if (r.file !== null) files.push(r.file);
  files.push(m.messages.pullBody.file, m.messages.batch.file, m.messages.commitLogComparison.file);
  for (const b of m.bodies) files.push(b.file);
  files.push(m.allocate.file);
  return files;
}

function filesOnDisk(): string[] {
  const root = fileURLToPath(GOLDEN_DIR);
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, `${e.parentPath}/${e.name}`).split('\\').join('/'));
}

describe('golden manifest', () => {
  test('was written by the official 4.9.8 code', () => {
    const m = goldenManifest();
    assert.equal(m.upstreamVersion, '4.9.8');
    assert.equal(m.mqVersion, 'V4_9_8');
    assert.equal(m.timeZone, 'UTC');
  });

  test('every listed file exists, once', () => {
    const listed = listedFiles();
    assert.equal(new Set(listed).size, listed.length, 'a file is listed twice');
    const onDisk = new Set(filesOnDisk());
    assert.deepEqual(
      listed.filter((f) => !onDisk.has(f)),
      [],
    );
  });

  test('every file in the golden directory is listed', () => {
    const listed = new Set([...listedFiles(), MANIFEST]);
    assert.deepEqual(
      filesOnDisk().filter((f) => !listed.has(f)),
      [],
    );
  });

  test('fileCount (the manifest included) matches the directory', () => {
    assert.equal(goldenManifest().fileCount, filesOnDisk().length);
    assert.equal(goldenManifest().fileCount, listedFiles().length + 1);
  });
});
