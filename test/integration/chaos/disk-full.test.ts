import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scenario } from '../../../scripts/chaos/scenarios/disk-full.js';
import { describe, runShort } from './run-scenario.js';

test('chaos disk-full (short form): refused with SERVICE_NOT_AVAILABLE, one log line, nothing acknowledged damaged, service back', {
  timeout: 120_000,
}, async () => {
  const rows = await runShort(scenario, 110_000);
  process.stdout.write(`${describe(rows)}\n`);
  assert.equal(rows.length, 1);
  const row = rows[0]!;
  assert.deepEqual(row.failures, [], describe(rows));
  assert.ok(Number(row.figures.refusedUnderLimit) > 0, 'the fault refused sends');
  assert.ok(row.acknowledged > 0);
  assert.equal(row.lostMessageCount, 0);
});
