/**
 * The short form of `npm run fuzz`: a few thousand seeded inputs per in-process target inside
 * `npm test` (the TCP target's short form is test/integration/broker/tcp-fuzz.test.ts), and the
 * engine's own rules: what is a crash, what is a hang, and that a seed repeats its run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { allTargets } from '../../fuzz/all-targets.js';
import { FuzzFinding, type FuzzTarget, fuzz, outcomeClass } from '../../fuzz/engine.js';

const INPUTS = 5000;

for (const target of allTargets) {
  test(`fuzz: ${target.id} (${INPUTS} inputs)`, { timeout: 120_000 }, () => {
    const result = fuzz(target, { inputs: INPUTS, seed: 0x5eed });
    assert.equal(result.inputs, INPUTS);
    // Both outcomes must occur, or the mutations are not reaching the decoder.
    assert.ok(result.accepted > 0, `${target.name}: no input was accepted`);
    assert.ok(result.rejected > 0, `${target.name}: no input was rejected`);
  });
}

function toyTarget(run: (input: Buffer) => void): FuzzTarget {
  return {
    id: 'toy',
    name: 'toy',
    seeds: [Buffer.from('seed-input')],
    run,
    isExpected: (err) => err instanceof RemotingCommandError,
  };
}

test('fuzz engine: an untyped error is a crash finding carrying the input', () => {
  const target = toyTarget((input) => {
    if (input.length > 12) throw new TypeError('read past the end');
  });
  assert.throws(
    () => fuzz(target, { inputs: 10_000, seed: 1 }),
    (err: unknown) =>
      err instanceof FuzzFinding && err.kind === 'crash' && err.input.length > 12 && err.inputIndex > 0,
  );
});

test('fuzz engine: a call over the per-input budget, also on re-runs, is a hang', () => {
  const target = toyTarget((input) => {
    if (input.length !== 3) return;
    const until = performance.now() + 30;
    while (performance.now() < until) {
      // A decoder stuck on this input.
    }
  });
  assert.throws(
    () => fuzz(target, { inputs: 100_000, seed: 1, maxMillisPerInput: 10 }),
    (err: unknown) => err instanceof FuzzFinding && err.kind === 'hang' && err.input.length === 3,
  );
});

test('fuzz engine: typed errors are outcomes, sorted into classes; a seed repeats its run', () => {
  const target = toyTarget((input) => {
    if (input.length % 2 === 1) throw new RemotingCommandError('toy', `odd length ${input.length}`);
  });
  const a = fuzz(target, { inputs: 2000, seed: 7 });
  const b = fuzz(target, { inputs: 2000, seed: 7 });
  assert.deepEqual([...a.outcomes], [...b.outcomes]);
  assert.equal(a.outcomes.size, 2);
  assert.ok(a.accepted > 0 && a.rejected > 0);
  assert.equal(
    outcomeClass(new RemotingCommandError('frame', 'header length 77 exceeds "x"')),
    'RemotingCommandError: frame: header length N exceeds S',
  );
});

test('fuzz engine: --time-limit stops a run early and says so', () => {
  const target = toyTarget(() => undefined);
  const r = fuzz(target, { inputs: 1e9, seed: 1, timeLimitMs: 50 });
  assert.ok(r.stoppedByTime && r.inputs < 1e9);
});
