import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scenario } from '../../../scripts/chaos/scenarios/slow-consumer.js';
import { describe, runShort } from './run-scenario.js';

test('chaos slow-consumer (short form): broker memory bounded, producer p99 kept', {
  timeout: 120_000,
}, async () => {
  const rows = await runShort(scenario, 110_000);
  process.stdout.write(`${describe(rows)}\n`);
  assert.equal(rows.length, 1);
  const row = rows[0]!;
  assert.deepEqual(row.failures, [], describe(rows));
  assert.ok(
    Number(row.figures.readPausedConnections) >= 1,
    'the broker stopped reading the reader that does not read',
  );
});
