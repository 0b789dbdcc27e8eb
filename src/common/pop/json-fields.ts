/**
 * Field access for the POP JSON records (checkpoints, acks, batch acks): fastjson2 bean semantics
 * where a missing primitive reads as 0/false and a missing object as absent, every key may have
 * alternate names (`@JSONField(alternateNames)`), and anything of the wrong type is a
 * RemotingCommandError naming the record and the key. Records come from the revive log or from
 * peers, so nothing here may throw anything else.
 */
import { RemotingCommandError } from '../errors.js';
import { type FastjsonRecord, type FastjsonValue, FjMap } from '../fastjson/index.js';

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

export class FastjsonFieldReader {
  private readonly rec: FastjsonRecord;

  constructor(
    private readonly what: string,
    value: FastjsonValue,
  ) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof FjMap) {
      throw new RemotingCommandError(what, 'not an object');
    }
    this.rec = value as FastjsonRecord;
  }

  fail(key: string, message: string): never {
    throw new RemotingCommandError(this.what, `${key}: ${message}`);
  }

  private get(keys: readonly string[]): [string, FastjsonValue | undefined] {
    for (const k of keys) {
      const v = this.rec[k];
      if (v !== undefined && v !== null) return [k, v];
    }
    return [keys[0] as string, undefined];
  }

  /** A Java long field (0 when absent). */
  long(...keys: string[]): bigint {
    const [k, v] = this.get(keys);
    if (v === undefined) return 0n;
    if (typeof v === 'bigint' && v >= LONG_MIN && v <= LONG_MAX) return v;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
    if (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) {
      const b = BigInt(v);
      if (b >= LONG_MIN && b <= LONG_MAX) return b;
    }
    return this.fail(k, 'not a long');
  }

  /** A Java int field (0 when absent). */
  int(...keys: string[]): number {
    const [k, v] = this.get(keys);
    if (v === undefined) return 0;
    if (typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX) return v;
    if (typeof v === 'string' && /^-?\d{1,10}$/.test(v)) {
      const n = Number(v);
      if (n >= INT_MIN && n <= INT_MAX) return n;
    }
    return this.fail(k, 'not an int');
  }

  /** A String field (undefined when absent). Numbers are accepted as their text, as fastjson does. */
  string(...keys: string[]): string | undefined {
    const [k, v] = this.get(keys);
    if (v === undefined) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'bigint') return String(v);
    return this.fail(k, 'not a string');
  }

  /** A boolean field (undefined when absent). */
  boolean(...keys: string[]): boolean | undefined {
    const [k, v] = this.get(keys);
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') return v;
    return this.fail(k, 'not a boolean');
  }

  private list(keys: readonly string[]): [string, FastjsonValue[] | undefined] {
    const [k, v] = this.get(keys);
    if (v === undefined) return [k, undefined];
    if (!Array.isArray(v)) return this.fail(k, 'not an array');
    return [k, v];
  }

  /** A List<Integer> field (undefined when absent). */
  intList(...keys: string[]): number[] | undefined {
    const [k, v] = this.list(keys);
    if (v === undefined) return undefined;
    return v.map((x) => {
      if (typeof x === 'number' && Number.isInteger(x) && x >= INT_MIN && x <= INT_MAX) return x;
      return this.fail(k, 'not a list of ints');
    });
  }

  /** A List<Long> field (undefined when absent). */
  longList(...keys: string[]): bigint[] | undefined {
    const [k, v] = this.list(keys);
    if (v === undefined) return undefined;
    return v.map((x) => {
      if (typeof x === 'bigint' && x >= LONG_MIN && x <= LONG_MAX) return x;
      if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x);
      return this.fail(k, 'not a list of longs');
    });
  }

  /** A nested object or list of objects, for bodies that hold records. */
  records(...keys: string[]): FastjsonValue[] | undefined {
    return this.list(keys)[1];
  }

  /** The raw value of a field (undefined when absent or null). */
  raw(...keys: string[]): FastjsonValue | undefined {
    return this.get(keys)[1];
  }
}
