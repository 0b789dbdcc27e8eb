/**
 * README.md's Layout table against the repository's folders, both ways: every folder of src/ two
 * levels deep and every top-level folder is named in the table (a row of its own, or `parent/child`
 * in its parent's row), and every path the table names exists.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../helpers/import-probe.js';

/** Top-level folders that are no part of the layout: git's, CI's, and what git ignores. */
const NOT_LAYOUT = new Set(['node_modules', 'build', 'data']);

function layoutTable(): { rows: string[][]; text: string } {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Layout\n');
  assert.ok(start >= 0, 'README.md has no "## Layout" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  const rows = lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim()),
  );
  return { rows, text: lines.join('\n') };
}

function dirs(path: string): string[] {
  return readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

test('every folder of src/ (two levels) and every top-level folder is in the Layout table', () => {
  const { rows, text } = layoutTable();
  const rowPaths = rows.flatMap((r) => ticked(r[0] ?? '')).map((p) => p.replace(/\/$/, ''));
  const covered = (path: string): boolean => rowPaths.some((p) => p === path || p.startsWith(`${path}/`));
  const missing: string[] = [];
  for (const top of dirs(repoRoot)) {
    if (top.startsWith('.') || NOT_LAYOUT.has(top)) continue;
    if (!covered(top)) missing.push(`${top}/`);
  }
  const src = join(repoRoot, 'src');
  for (const layer of dirs(src)) {
    if (!covered(`src/${layer}`)) missing.push(`src/${layer}`);
    for (const sub of dirs(join(src, layer))) {
      const named = covered(`src/${layer}/${sub}`) || text.includes(`\`${layer}/${sub}`);
      if (!named) missing.push(`src/${layer}/${sub} (a row, or \`${layer}/${sub}\` in its row)`);
    }
  }
  assert.deepEqual(missing, [], 'folders the Layout table does not name');
});

test('every path the Layout table names exists', () => {
  const { rows } = layoutTable();
  const absent: string[] = [];
  for (const row of rows) {
    for (const cell of row) {
      for (const path of ticked(cell)) {
        // Paths only: `a/b` names, not package specifiers, URLs or placeholders.
        if (
          !/^[a-z][\w.-]*(\/[\w.-]+)*\/?$/.test(path) ||
          !path.includes('/') ||
          path.startsWith('rocketmq-ts')
        ) {
          continue;
        }
        const inRepo = existsSync(join(repoRoot, path));
        const inSrc = existsSync(join(repoRoot, 'src', path));
        if (!inRepo && !inSrc) absent.push(path);
      }
    }
  }
  assert.deepEqual(absent, [], 'paths in the Layout table that do not exist');
});
