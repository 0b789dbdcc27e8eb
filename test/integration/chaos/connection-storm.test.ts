import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scenario } from '../../../scripts/chaos/scenarios/connection-storm.js';
import { describe, runShort } from './run-scenario.js';

test('chaos connection-storm (short form): 10,000 held pulls, broker answers, RSS bounded, nothing left after', {
  timeout: 120_000,
}, async () => {
  const rows = await runShort(scenario, 110_000);
  process.stdout.write(`${describe(rows)}\n`);
  assert.equal(rows.length, 1);
  const row = rows[0]!;
  assert.deepEqual(row.failures, [], describe(rows));
  assert.equal(row.figures.heldPulls, 10_000);
});
