/** 100,000 seeded inputs per target inside `npm test`; `npm run fuzz -- --inputs N` runs longer. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allTargets } from '../../fuzz/all-targets.js';
import { fuzz } from '../../fuzz/engine.js';

const INPUTS = 100_000;

for (const target of allTargets) {
  test(`fuzz: ${target.name} (${INPUTS} inputs)`, { timeout: 120_000 }, () => {
    const result = fuzz(target, { inputs: INPUTS, seed: 0x5eed });
    assert.equal(result.inputs, INPUTS);
    // Both outcomes must occur, or the mutations are not reaching the decoder.
    assert.ok(result.accepted > 0, `${target.name}: no input was accepted`);
    assert.ok(result.rejected > 0, `${target.name}: no input was rejected`);
  });
}
