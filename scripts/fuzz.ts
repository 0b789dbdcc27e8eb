/**
 * Long fuzz runs: `npm run fuzz -- [--inputs N] [--targets a,b] [--seed S] [--time-limit SECONDS]
 * [--out DIR] [--replay FILE]`.
 *
 * --inputs      inputs per target (default 1,000,000)
 * --targets     comma-separated target ids (default all): frames, json-header, rocketmq-header,
 *               fastjson, bodies, records, batch, broker-tcp
 * --seed        PRNG seed (default: from the clock, printed so the run can be repeated)
 * --time-limit  seconds per target; a target stops early when reached (printed as such)
 * --out         where failing inputs are written (default .tmp/fuzz-findings)
 * --replay      runs one saved input against the one target named by --targets (for broker-tcp:
 *               the saved frames are sent to a fresh broker, then probed)
 *
 * Prints per target: inputs, seconds, inputs/s, distinct outcome classes, crashes, hangs, seed.
 * Exits 1 on any crash or hang, after writing the input to <out>/<target>-seed<S>-input<i>.bin.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allTargets } from '../test/fuzz/all-targets.js';
import { type BrokerFuzzResult, fuzzBroker, replayBroker } from '../test/fuzz/broker-target.js';
import { describeFailure, FuzzFinding, type FuzzResult, fuzz } from '../test/fuzz/engine.js';

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const inputs = Number(argValue('--inputs') ?? 1_000_000);
const seed = Number(argValue('--seed') ?? Date.now() % 2 ** 31);
const timeLimit = argValue('--time-limit');
const timeLimitMs = timeLimit === undefined ? undefined : Number(timeLimit) * 1000;
const outDir = argValue('--out') ?? join('.tmp', 'fuzz-findings');
const replay = argValue('--replay');
const BROKER_TARGET = 'broker-tcp';
const allIds = [...allTargets.map((t) => t.id), BROKER_TARGET];
const selected = (argValue('--targets') ?? allIds.join(',')).split(',').filter((s) => s !== '');

if (!Number.isInteger(inputs) || inputs <= 0) throw new Error('--inputs must be a positive integer');
if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
if (timeLimitMs !== undefined && !(timeLimitMs > 0))
  throw new Error('--time-limit must be a positive number');
for (const id of selected) {
  if (!allIds.includes(id)) throw new Error(`unknown target ${id}; known: ${allIds.join(', ')}`);
}

function saveFinding(id: string, index: number, input: Buffer, what: string): string {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${id}-seed${seed}-input${index}.bin`);
  writeFileSync(file, input);
  writeFileSync(`${file}.txt`, `${what}\n`);
  return file;
}

function line(
  id: string,
  r: { inputs: number; outcomes: Map<string, number>; stoppedByTime: boolean },
  secs: number,
  crashes: number,
  hangs: number,
  extra = '',
): void {
  const rate = Math.round(r.inputs / Math.max(secs, 1e-9));
  // "other" holds the classes past the engine's cap: the count is then a lower bound.
  const classes = r.outcomes.has('other') ? `>= ${r.outcomes.size - 1}` : String(r.outcomes.size);
  console.log(
    `${id}: inputs ${r.inputs}, ${secs.toFixed(1)} s, ${rate} inputs/s, outcome classes ${classes}, crashes ${crashes}, hangs ${hangs}, seed ${seed}${r.stoppedByTime ? ' (stopped at --time-limit)' : ''}${extra}`,
  );
}

if (replay !== undefined && selected.length === 1 && selected[0] === BROKER_TARGET) {
  for (const event of await replayBroker(readFileSync(replay))) console.log(event);
} else if (replay !== undefined) {
  const target = allTargets.find((t) => t.id === selected[0]);
  if (target === undefined || selected.length !== 1)
    throw new Error('--replay needs one in-process target in --targets');
  const input = readFileSync(replay);
  const started = performance.now();
  try {
    target.run(input, () => 0.5);
    console.log(`${target.id}: accepted in ${(performance.now() - started).toFixed(1)} ms`);
  } catch (err) {
    console.log(
      `${target.id}: ${target.isExpected(err) ? 'rejected' : 'CRASH'} in ${(performance.now() - started).toFixed(1)} ms`,
    );
    console.log(err);
  }
} else {
  let failed = false;
  for (const target of allTargets) {
    if (!selected.includes(target.id)) continue;
    const started = performance.now();
    try {
      const r: FuzzResult = fuzz(target, {
        inputs,
        seed,
        ...(timeLimitMs === undefined ? {} : { timeLimitMs }),
      });
      line(
        target.id,
        r,
        (performance.now() - started) / 1000,
        0,
        0,
        `, slowest ${r.slowestMillis.toFixed(1)} ms`,
      );
    } catch (err) {
      failed = true;
      if (!(err instanceof FuzzFinding)) throw err;
      const file = saveFinding(target.id, err.inputIndex, err.input, err.message);
      const secs = (performance.now() - started) / 1000;
      console.log(
        `${target.id}: ${err.kind.toUpperCase()} at input ${err.inputIndex} after ${secs.toFixed(1)} s, seed ${seed}: ${describeFailure(err.failure)}`,
      );
      console.log(`  input written to ${file}`);
    }
  }
  if (selected.includes(BROKER_TARGET)) {
    const started = performance.now();
    const r: BrokerFuzzResult = await fuzzBroker({
      inputs,
      seed,
      ...(timeLimitMs === undefined ? {} : { timeLimitMs }),
    });
    const secs = (performance.now() - started) / 1000;
    line(
      BROKER_TARGET,
      r,
      secs,
      r.crashes.length,
      r.hangs.length,
      `, probes ${r.probes}, reconnects ${r.reconnects}, slowest probe ${r.slowestProbeMillis.toFixed(1)} ms`,
    );
    for (const f of [...r.crashes, ...r.hangs]) {
      failed = true;
      const file = saveFinding(BROKER_TARGET, f.inputIndex, f.input, f.what);
      console.log(`  ${f.what}\n  input (and the ones before it) written to ${file}`);
    }
  }
  process.exitCode = failed ? 1 : 0;
}
