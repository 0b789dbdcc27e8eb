/**
 * The short form of `npm run attack` (issue 26): every attack class replayed against what it starts
 * on 127.0.0.1, each case expected to hold. The full form is the script; this keeps CI honest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTACK_CLASSES } from '../../../scripts/attack/index.js';

for (const cls of ATTACK_CLASSES) {
  test(`attack ${cls.name} (short form) is held`, { timeout: 120_000 }, async () => {
    const verdicts = await cls.run({ short: true });
    assert.ok(verdicts.length > 0, `${cls.name} reported no case`);
    const breached = verdicts.filter((v) => v.verdict === 'breached');
    assert.deepEqual(
      breached.map((v) => `${v.case}: ${v.figure}`),
      [],
      `${cls.name}: breached cases`,
    );
  });
}
