/**
 * Typed access to parsed JSON bodies. A body is peer input: every field is checked and a wrong or
 * missing one raises a RemotingCommandError naming the body and the field path.
 */
import { RemotingCommandError } from '../errors.js';
import { type FastjsonRecord, type FastjsonValue, FjMap, parseFastjson } from '../fastjson/index.js';

export class BodyReader {
  constructor(
    readonly body: string,
    readonly path: string,
    readonly value: FastjsonValue,
  ) {}

  /** Parses a body (fastjson tolerant syntax) into a reader of its top-level object. */
  static parse(body: string, bytes: Buffer | undefined): BodyReader {
    if (bytes === undefined || bytes.length === 0) throw new RemotingCommandError(body, 'the body is empty');
    return new BodyReader(body, '$', parseFastjson(bytes, { what: body }));
  }

  fail(message: string): never {
    throw new RemotingCommandError(this.body, `${this.path}: ${message}`);
  }

  private record(): FastjsonRecord {
    const v = this.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof FjMap)
      this.fail('not an object');
    return v as FastjsonRecord;
  }

  /** The reader of a field, or undefined when the field is absent or null. */
  optional(key: string): BodyReader | undefined {
    const v = this.record()[key];
    return v === undefined || v === null ? undefined : new BodyReader(this.body, `${this.path}.${key}`, v);
  }

  field(key: string): BodyReader {
    return this.optional(key) ?? new BodyReader(this.body, `${this.path}.${key}`, null).fail('missing');
  }

  string(): string {
    if (typeof this.value !== 'string') this.fail('not a string');
    return this.value;
  }

  int(): number {
    const v = this.value;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647)
      this.fail('not an int');
    return v;
  }

  long(): bigint {
    const v = this.value;
    if (typeof v === 'bigint') return v;
    if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
    // Standard-form bodies write longs beyond 2^53 as strings.
    if (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) return BigInt(v);
    this.fail('not a long');
  }

  boolean(): boolean {
    if (typeof this.value !== 'boolean') this.fail('not a boolean');
    return this.value;
  }

  array(): BodyReader[] {
    if (!Array.isArray(this.value)) this.fail('not an array');
    return this.value.map((v, i) => new BodyReader(this.body, `${this.path}[${i}]`, v));
  }

  /** Entries of a map with plain keys (strings or bare numbers, which the parser keeps as text). */
  entries(): Array<[string, BodyReader]> {
    return Object.entries(this.record()).map(([k, v]) => [
      k,
      new BodyReader(this.body, `${this.path}.${k}`, v),
    ]);
  }
}
