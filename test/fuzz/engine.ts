/**
 * A small seeded fuzzer: mutates valid seed inputs (and sometimes makes random ones) and runs a target
 * on each. A target may only fail with the typed errors it declares; anything else, or an input that
 * takes longer than `maxMillisPerInput`, is a finding. Deterministic for a given seed.
 */
import { seededRandom } from '../helpers/chunks.js';

export interface FuzzTarget {
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
}

export class FuzzFinding extends Error {
  constructor(
    readonly target: string,
    readonly input: Buffer,
    readonly failure: unknown,
  ) {
    super(
      `${target}: ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)} on input ${input.toString('hex').slice(0, 400)}`,
    );
  }
}

const INTERESTING_INT32 = [
  0, 1, -1, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, -0x80000000,
];

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

export function mutate(seed: Buffer, seeds: readonly Buffer[], random: () => number): Buffer {
  let buf = Buffer.from(seed);
  const rounds = 1 + Math.floor(random() * 4);
  for (let r = 0; r < rounds; r++) {
    const at = buf.length === 0 ? 0 : Math.floor(random() * buf.length);
    switch (Math.floor(random() * 9)) {
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
        const extra = Buffer.alloc(1 + Math.floor(random() * 8));
        for (let i = 0; i < extra.length; i++) extra[i] = Math.floor(random() * 256);
        buf = Buffer.concat([buf.subarray(0, at), extra, buf.subarray(at)]);
        break;
      }
      case 7: {
        const end = Math.min(buf.length, at + 1 + Math.floor(random() * 32));
        buf = Buffer.concat([buf.subarray(0, end), buf.subarray(at, end), buf.subarray(end)]);
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

function randomBytes(random: () => number): Buffer {
  const buf = Buffer.alloc(Math.floor(random() * 64));
  for (let i = 0; i < buf.length; i++) buf[i] = Math.floor(random() * 256);
  return buf;
}

export interface FuzzOptions {
  inputs: number;
  seed: number;
  maxMillisPerInput?: number;
}

export function fuzz(target: FuzzTarget, options: FuzzOptions): FuzzResult {
  const random = seededRandom(options.seed);
  const limit = options.maxMillisPerInput ?? 1000;
  const result: FuzzResult = { target: target.name, inputs: 0, accepted: 0, rejected: 0, slowestMillis: 0 };
  for (let i = 0; i < options.inputs; i++) {
    const input =
      i < target.seeds.length
        ? (target.seeds[i] as Buffer)
        : random() < 0.05 || target.seeds.length === 0
          ? randomBytes(random)
          : mutate(pick(target.seeds, random), target.seeds, random);
    const started = performance.now();
    try {
      target.run(input, random);
      result.accepted++;
    } catch (err) {
      if (!target.isExpected(err)) throw new FuzzFinding(target.name, input, err);
      result.rejected++;
    }
    const took = performance.now() - started;
    if (took > result.slowestMillis) result.slowestMillis = took;
    if (took > limit) throw new FuzzFinding(target.name, input, new Error(`took ${took.toFixed(1)} ms`));
    result.inputs++;
  }
  return result;
}
