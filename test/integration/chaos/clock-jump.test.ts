import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scenario } from '../../../scripts/chaos/scenarios/clock-jump.js';
import { describe, runShort } from './run-scenario.js';

test('chaos clock-jump (short form): delay levels neither early en masse nor stuck, retention deletes nothing early', {
  timeout: 120_000,
}, async () => {
  const rows = await runShort(scenario, 110_000);
  process.stdout.write(`${describe(rows)}\n`);
  assert.equal(rows.length, 2);
  for (const row of rows) assert.deepEqual(row.failures, [], describe(rows));
  const retention = rows.find((r) => r.mode.startsWith('retention'))!;
  assert.ok(Number(retention.figures.filesDeletedPastReserve) > 0, 'the control jump deleted files');
});
