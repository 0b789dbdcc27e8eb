/** Our parser and evaluator against upstream's verdicts on 600 generated selectors (see the corpus file). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UPSTREAM_SQL92_CORPUS } from './upstream-sql92-corpus.js';
import { verdict } from './verdict.js';

test('the corpus covers both accepted and refused selectors', () => {
  const accepted = UPSTREAM_SQL92_CORPUS.filter(([, , expected]) => expected !== 'ERR').length;
  assert.ok(accepted > 200, `${accepted} accepted`);
  assert.ok(UPSTREAM_SQL92_CORPUS.length - accepted > 200);
  const results = UPSTREAM_SQL92_CORPUS.flatMap(([, , expected]) => expected.split(' '));
  for (const r of ['TRUE', 'FALSE', 'NULL', 'EXC']) assert.ok(results.includes(r), r);
});

test('every verdict matches upstream', () => {
  const differences: string[] = [];
  for (const [text, contexts, expected] of UPSTREAM_SQL92_CORPUS) {
    const actual = verdict(text, contexts);
    if (actual !== expected)
      differences.push(`${JSON.stringify(text)}: upstream ${expected}, ours ${actual}`);
  }
  assert.deepEqual(differences, []);
});
