/**
 * A small seeded fuzzer: mutates valid seed inputs (and sometimes makes random ones) and runs a target
 * on each. Deterministic for a given seed. What counts as a finding:
 * - crash: the target throws anything but the typed errors it declares (a TypeError or RangeError out
 *   of a Buffer read, a failed oracle such as a round trip that changes the value);
 * - hang: one call takes longer than `maxMillisPerInput`, and so do two re-runs of the same input (the
 *   re-runs keep a garbage-collection pause or a busy neighbour process from being taken for a hang).
 * Every other outcome is sorted into classes (accepted, or the error's class and message with numbers
 * and quoted text blanked), whose count shows how many distinct paths the inputs reached.
 */
import { seededRandom } from '../helpers/chunks.js';

export interface FuzzTarget {
  /** Short name for --targets and file names. */
  id: string;
  name: string;
  seeds: readonly Buffer[];
  /** Runs one input; throws only typed errors for bad input. */
  run(input: Buffer, random: () => number): void;
  /** True for the errors bad input may legitimately produce. */
  isExpected(err: unknown): boolean;
}

export interface FuzzResult {
  target: string;
  inputs: number;
  accepted: number;
  rejected: number;
  slowestMillis: number;
  /** Outcome class -> count; classes past OUTCOME_CLASS_LIMIT are counted under "other". */
  outcomes: Map<string, number>;
  /** True when the run stopped at its time limit before `inputs` inputs. */
  stoppedByTime: boolean;
}

export type FindingKind = 'crash' | 'hang';

export class FuzzFinding extends Error {
  constructor(
    readonly target: string,
    readonly kind: FindingKind,
    readonly input: Buffer,
    readonly failure: unknown,
    readonly inputIndex = -1,
  ) {
    super(
      `${target}: ${kind} at input ${inputIndex}: ${describeFailure(failure)} on input ${input.toString('hex').slice(0, 400)}`,
    );
  }
}

export function describeFailure(failure: unknown): string {
  if (failure instanceof Error) return `${failure.name}: ${failure.message}`;
  return String(failure);
}

/** Upper bound of distinct outcome classes kept, so a run cannot grow the map without end. */
export const OUTCOME_CLASS_LIMIT = 2000;

/** Per-input time above which a synchronous decoder call is a hang (re-checked twice). */
export const DEFAULT_MAX_MILLIS_PER_INPUT = 100;

/** An error's class with the parts that vary per input (numbers, quoted text, paths) blanked. */
export function outcomeClass(err: unknown): string {
  const name = err instanceof Error ? err.constructor.name : typeof err;
  const message = err instanceof Error ? err.message : String(err);
  const shape = message
    .replace(/Unexpected token[\s\S]*/, 'Unexpected token')
    // Body field paths name peer-chosen keys: keep their shape ($.k[].k) only.
    .replace(/\$[^\s:]*/g, (path) => path.replace(/\.[^.[]*/g, '.k'))
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, 'S')
    .replace(/\[\d+\]/g, '[]')
    .replace(/U\+[0-9A-F]{4,6}/g, 'U+X')
    .replace(/0x[0-9a-f]+/gi, 'N')
    .replace(/-?\d+(\.\d+)?/g, 'N')
    .slice(0, 100);
  return `${name}: ${shape}`;
}

export function countOutcome(outcomes: Map<string, number>, cls: string): void {
  const known = outcomes.get(cls);
  if (known !== undefined) outcomes.set(cls, known + 1);
  else if (outcomes.size < OUTCOME_CLASS_LIMIT) outcomes.set(cls, 1);
  else outcomes.set('other', (outcomes.get('other') ?? 0) + 1);
}

const INTERESTING_INT32 = [
  0, 1, -1, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x10000, 0xffffff, 0x1000000, 0x7fffffff,
  -0x80000000,
];

export function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/**
 * Mutations a length-prefixed format is sensitive to: bit flips, random bytes, interesting ints,
 * length-field nudges (an int32 or int16 moved by a little), truncations, cuts, insertions,
 * duplications, extensions at the end and splices with another seed.
 */
export function mutate(seed: Buffer, seeds: readonly Buffer[], random: () => number): Buffer {
  let buf = Buffer.from(seed);
  const rounds = 1 + Math.floor(random() * 4);
  for (let r = 0; r < rounds; r++) {
    const at = buf.length === 0 ? 0 : Math.floor(random() * buf.length);
    switch (Math.floor(random() * 12)) {
      case 0:
        if (buf.length > 0) buf[at] = (buf[at] ?? 0) ^ (1 << Math.floor(random() * 8));
        break;
      case 1:
        if (buf.length > 0) buf[at] = Math.floor(random() * 256);
        break;
      case 2:
        if (buf.length >= 4)
          buf.writeInt32BE(pick(INTERESTING_INT32, random) | 0, Math.min(at, buf.length - 4));
        break;
      case 3:
        if (buf.length >= 2)
          buf.writeUInt16BE(pick(INTERESTING_INT32, random) & 0xffff, Math.min(at, buf.length - 2));
        break;
      case 4:
        buf = buf.subarray(0, at);
        break;
      case 5: {
        const end = Math.min(buf.length, at + 1 + Math.floor(random() * 16));
        buf = Buffer.concat([buf.subarray(0, at), buf.subarray(end)]);
        break;
      }
      case 6: {
        const extra = randomBytes(random, 8, 1);
        buf = Buffer.concat([buf.subarray(0, at), extra, buf.subarray(at)]);
        break;
      }
      case 7: {
        const end = Math.min(buf.length, at + 1 + Math.floor(random() * 32));
        buf = Buffer.concat([buf.subarray(0, end), buf.subarray(at, end), buf.subarray(end)]);
        break;
      }
      case 8: {
        // A length field off by a little: the classic over- and under-read.
        const delta = Math.floor(random() * 33) - 16 || 1;
        if (random() < 0.5 && buf.length >= 4) {
          const p = Math.min(at, buf.length - 4);
          buf.writeInt32BE((buf.readInt32BE(p) + delta) | 0, p);
        } else if (buf.length >= 2) {
          const p = Math.min(at, buf.length - 2);
          buf.writeUInt16BE((buf.readUInt16BE(p) + delta) & 0xffff, p);
        }
        break;
      }
      case 9:
        buf = Buffer.concat([buf, randomBytes(random, 64, 1)]);
        break;
      case 10: {
        // Another seed's tail, or a whole seed, appended: records and frames come in runs.
        const other = pick(seeds, random);
        buf = Buffer.concat([
          buf,
          random() < 0.5 ? other : other.subarray(Math.floor(random() * other.length)),
        ]);
        break;
      }
      default: {
        const other = pick(seeds, random);
        const cut = Math.floor(random() * (other.length + 1));
        buf = Buffer.concat([buf.subarray(0, at), other.subarray(cut)]);
      }
    }
  }
  return buf;
}

function randomBytes(random: () => number, max = 64, min = 0): Buffer {
  const buf = Buffer.alloc(min + Math.floor(random() * (max - min + 1)));
  for (let i = 0; i < buf.length; i++) buf[i] = Math.floor(random() * 256);
  return buf;
}

/** The i-th input of a run: the seeds first, then 5% random bytes and 95% mutated seeds. */
export function nextInput(target: FuzzTarget, i: number, random: () => number): Buffer {
  if (i < target.seeds.length) return target.seeds[i] as Buffer;
  if (random() < 0.05 || target.seeds.length === 0) return randomBytes(random);
  return mutate(pick(target.seeds, random), target.seeds, random);
}

export interface FuzzOptions {
  inputs: number;
  seed: number;
  maxMillisPerInput?: number;
  /** Stop after this many milliseconds even if fewer inputs ran (the result says so). */
  timeLimitMs?: number;
}

/** Runs one input, returning the outcome class or throwing a FuzzFinding (crash). */
function runOne(target: FuzzTarget, input: Buffer, random: () => number, index: number): string | undefined {
  try {
    target.run(input, random);
    return undefined;
  } catch (err) {
    if (!target.isExpected(err)) throw new FuzzFinding(target.name, 'crash', input, err, index);
    return outcomeClass(err);
  }
}

export function fuzz(target: FuzzTarget, options: FuzzOptions): FuzzResult {
  const random = seededRandom(options.seed);
  const limit = options.maxMillisPerInput ?? DEFAULT_MAX_MILLIS_PER_INPUT;
  const deadline = options.timeLimitMs === undefined ? Infinity : performance.now() + options.timeLimitMs;
  const result: FuzzResult = {
    target: target.name,
    inputs: 0,
    accepted: 0,
    rejected: 0,
    slowestMillis: 0,
    outcomes: new Map(),
    stoppedByTime: false,
  };
  for (let i = 0; i < options.inputs; i++) {
    if ((i & 1023) === 0 && performance.now() > deadline) {
      result.stoppedByTime = true;
      break;
    }
    const input = nextInput(target, i, random);
    // The target may draw from `random` (chunk sizes); re-runs get their own stream so the main
    // sequence, and so every later input, is the same whether or not a re-run happened.
    const started = performance.now();
    const cls = runOne(target, input, random, i);
    let took = performance.now() - started;
    if (took > limit) {
      for (let again = 0; again < 2 && took > limit; again++) {
        const t0 = performance.now();
        runOne(target, input, seededRandom(i), i);
        took = Math.min(took, performance.now() - t0);
      }
      if (took > limit)
        throw new FuzzFinding(target.name, 'hang', input, new Error(`took ${took.toFixed(1)} ms`), i);
    }
    if (cls === undefined) result.accepted++;
    else result.rejected++;
    countOutcome(result.outcomes, cls ?? 'accepted');
    if (took > result.slowestMillis) result.slowestMillis = took;
    result.inputs++;
  }
  return result;
}
