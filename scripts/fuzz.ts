/** Long fuzz runs: `npm run fuzz -- --inputs 10000000 [--seed N] [--target name-substring]`. */
import { allTargets } from '../test/fuzz/all-targets.js';
import { FuzzFinding, fuzz } from '../test/fuzz/engine.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const inputs = Number(argValue('--inputs') ?? 1_000_000);
const seed = Number(argValue('--seed') ?? Date.now() % 2 ** 31);
const only = argValue('--target');
if (!Number.isInteger(inputs) || inputs <= 0) throw new Error('--inputs must be a positive integer');

let failed = false;
for (const target of allTargets) {
  if (only !== undefined && !target.name.includes(only)) continue;
  const started = performance.now();
  try {
    const r = fuzz(target, { inputs, seed });
    const secs = (performance.now() - started) / 1000;
    console.log(
      `${target.name}: ${r.inputs} inputs in ${secs.toFixed(1)} s (seed ${seed}), accepted ${r.accepted}, rejected ${r.rejected}, slowest ${r.slowestMillis.toFixed(2)} ms`,
    );
  } catch (err) {
    failed = true;
    console.log(err instanceof FuzzFinding ? `FINDING ${err.message}` : err);
  }
}
process.exitCode = failed ? 1 : 0;
