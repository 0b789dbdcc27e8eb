/**
 * Emitter reproducing fastjson 1.2.69 `JSON.toJSONString` byte for byte (checked against the real jar).
 *
 * JSON.DEFAULT_GENERATE_FEATURE is QuoteFieldNames | SkipTransientField | WriteEnumUsingName | SortField;
 * SortField orders bean fields (FieldInfo.compareTo -> String.compareTo, UTF-16 code unit order) but not
 * Map entries: MapSerializer.write writes a map in its own iteration order and only copies it into a
 * TreeMap when MapSortField is on (and the map is neither a SortedMap nor a LinkedHashMap).
 *
 * How JS values map to Java:
 *  - plain object -> bean: own keys sorted, null/undefined fields left out, keys always quoted;
 *  - FjMap -> Map: entries in the given order; null/undefined values left out; a string key is quoted,
 *    any other key is written bare through the value writer (`{0:"a"}`, `{{"brokerName":..}:..}`), or in
 *    the standard form as the JSON string of its default-feature text;
 *  - array -> List (null items written as `null`); FjSet -> Set (never pretty-printed: CollectionCodec);
 *  - integer number or bigint -> long digits; any other finite number, and JavaDouble, -> Java double text
 *    (`0.0`, `1.0E7`); NaN and infinities -> `null` (DoubleSerializer);
 *  - string -> escaped as escape.ts describes.
 * Object identity is not tracked, so fastjson's `{"$ref":..}` for a repeated instance is never written.
 */

import { ValidationError } from '../errors.js';
import { quoteFastjsonString } from './escape.js';
import { formatJavaDouble } from './java-double.js';
import { type FjEmittable, type FjEmittableRecord, FjMap, FjSet, JavaDouble } from './values.js';

export interface StringifyFastjsonOptions {
  /**
   * `fastjson` (default): JSON.toJSONString with default features; non-string map keys are bare.
   * `standard`: SerializerFeature.BrowserCompatible, as the 4.9.4+ name server sends routes:
   * non-string map keys become JSON strings, '/' and every code unit >= 0x7F are \u-escaped, and longs
   * beyond +-(2^53-1) are written as quoted strings (SerializeWriter.writeLong).
   */
  readonly form?: 'fastjson' | 'standard';
  /**
   * SerializerFeature.MapSortField: FjMap entries sorted by Java natural key order (strings by UTF-16
   * code units, numbers numerically) unless the map has `keepOrder`. Keys of mixed or object type stay
   * in their order (the TreeMap copy fails and fastjson skips it). Default: true for `standard`.
   */
  readonly mapSortField?: boolean;
  /** SerializerFeature.PrettyFormat (`JSON.toJSONString(obj, true)`, the broker's config files). */
  readonly pretty?: boolean;
  /** Deepest nesting written before giving up (guards against cyclic values). Default 512. */
  readonly maxDepth?: number;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const LONG_LIMIT = 2 ** 63;

/** The fastjson text of `value`. Throws ValidationError for values fastjson could not have produced. */
export function stringifyFastjson(value: FjEmittable, options?: StringifyFastjsonOptions): string {
  const standard = options?.form === 'standard';
  const w = new Writer(
    standard,
    options?.pretty ?? false,
    options?.mapSortField ?? standard,
    options?.maxDepth ?? 512,
  );
  w.value(value, 0);
  return w.out;
}

class Writer {
  out = '';
  private indent = 0;

  constructor(
    private readonly standard: boolean,
    private readonly pretty: boolean,
    private readonly mapSortField: boolean,
    private readonly maxDepth: number,
  ) {}

  /** JSONSerializer.println: a newline and one tab per indent level. */
  private println(): void {
    this.out += `\n${'\t'.repeat(this.indent)}`;
  }

  value(v: FjEmittable, depth: number): void {
    switch (typeof v) {
      case 'string':
        this.out += quoteFastjsonString(v, this.standard);
        return;
      case 'number':
        this.out += this.numberText(v);
        return;
      case 'bigint':
        this.out += this.longText(v);
        return;
      case 'boolean':
        this.out += v ? 'true' : 'false';
        return;
      case 'undefined':
        this.out += 'null';
        return;
      case 'object':
        break;
      default:
        throw new ValidationError(`fastjson: cannot write a ${typeof v}`);
    }
    if (v === null) {
      this.out += 'null';
      return;
    }
    if (v instanceof JavaDouble) {
      this.out += Number.isFinite(v.value) ? formatJavaDouble(v.value) : 'null';
      return;
    }
    if (depth >= this.maxDepth)
      throw new ValidationError(`fastjson: nesting deeper than ${this.maxDepth} (cyclic value?)`);
    if (isArray(v)) this.list(v, depth + 1);
    else if (v instanceof FjMap) this.map(v, depth + 1);
    else if (v instanceof FjSet) this.set(v, depth + 1);
    else this.bean(v, depth + 1);
  }

  private numberText(n: number): string {
    if (!Number.isFinite(n)) return 'null';
    if (Number.isInteger(n) && Math.abs(n) < LONG_LIMIT) {
      // String(-0) is "0", as a Java long would be.
      return Number.isSafeInteger(n) ? String(n) : this.longText(BigInt(n));
    }
    return formatJavaDouble(n);
  }

  private longText(b: bigint): string {
    const s = b.toString();
    return this.standard && (b > MAX_SAFE || b < -MAX_SAFE) ? `"${s}"` : s;
  }

  /** JavaBeanSerializer.write with SortField. */
  private bean(rec: FjEmittableRecord, depth: number): void {
    const proto: unknown = Object.getPrototypeOf(rec);
    if (proto !== Object.prototype && proto !== null) {
      throw new ValidationError(`fastjson: cannot write an instance of ${describeClass(rec)}`);
    }
    const keys = Object.keys(rec);
    if (keys.length === 0) {
      this.out += '{}';
      return;
    }
    keys.sort();
    this.out += '{';
    if (this.pretty) {
      this.indent++;
      this.println();
    }
    let first = true;
    for (const k of keys) {
      const v = rec[k];
      if (v === null || v === undefined) continue;
      if (!first) {
        this.out += ',';
        if (this.pretty) this.println();
      }
      first = false;
      this.out += `${quoteFastjsonString(k, this.standard)}:`;
      this.value(v, depth);
    }
    if (this.pretty) {
      this.indent--;
      this.println();
    }
    this.out += '}';
  }

  /** MapSerializer.write. */
  private map(map: FjMap<FjEmittable, FjEmittable>, depth: number): void {
    let entries: ReadonlyArray<readonly [FjEmittable, FjEmittable]> = map.entries;
    if (this.mapSortField && !map.keepOrder) entries = treeMapOrder(entries);
    this.out += '{';
    this.indent++;
    let first = true;
    for (const [k, v] of entries) {
      if (v === null || v === undefined) continue;
      if (!first) this.out += ',';
      first = false;
      if (typeof k === 'string') {
        if (this.pretty) this.println();
        this.out += quoteFastjsonString(k, this.standard);
      } else if (this.standard) {
        // JSON.toJSONString(entryKey) with default features, then written as a string.
        const inner = new Writer(false, false, false, this.maxDepth - depth);
        inner.value(k, 0);
        this.out += quoteFastjsonString(inner.out, true);
      } else {
        this.value(k, depth);
      }
      this.out += ':';
      this.value(v, depth);
    }
    this.indent--;
    if (this.pretty && entries.length > 0) this.println();
    this.out += '}';
  }

  /** ListSerializer.write. */
  private list(items: readonly FjEmittable[], depth: number): void {
    if (items.length === 0) {
      this.out += '[]';
      return;
    }
    this.out += '[';
    if (this.pretty) this.indent++;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.out += ',';
      if (this.pretty) this.println();
      this.value(items[i], depth);
    }
    if (this.pretty) {
      this.indent--;
      this.println();
    }
    this.out += ']';
  }

  /** CollectionCodec.write: no pretty layout of its own. */
  private set(set: FjSet, depth: number): void {
    this.out += '[';
    const items = set.items;
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.out += ',';
      this.value(items[i], depth);
    }
    this.out += ']';
  }
}

function isArray(v: object): v is readonly FjEmittable[] {
  return Array.isArray(v);
}

function describeClass(v: object): string {
  const ctor: unknown = (v as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && ctor.name !== '' ? ctor.name : 'a class';
}

type KeyKind = 'string' | 'number' | 'boolean' | 'other';

function keyKind(k: FjEmittable): KeyKind {
  if (typeof k === 'string') return 'string';
  if (typeof k === 'number' || typeof k === 'bigint' || k instanceof JavaDouble) return 'number';
  if (typeof k === 'boolean') return 'boolean';
  return 'other';
}

function numericKey(k: FjEmittable): number | bigint {
  if (k instanceof JavaDouble) return k.value;
  return typeof k === 'number' || typeof k === 'bigint' ? k : 0;
}

/**
 * `new TreeMap(map)` as MapSerializer does it: natural order, equal keys merged (first key, last value).
 * Keys of different kinds, or of a kind with no natural order here, make Java's TreeMap throw and
 * fastjson keep the original order.
 */
function treeMapOrder(
  entries: ReadonlyArray<readonly [FjEmittable, FjEmittable]>,
): ReadonlyArray<readonly [FjEmittable, FjEmittable]> {
  if (entries.length < 2) return entries;
  const kind = keyKind(entries[0]![0]);
  if (kind === 'other') return entries;
  for (const e of entries) if (keyKind(e[0]) !== kind) return entries;
  const compare =
    kind === 'string'
      ? (a: FjEmittable, b: FjEmittable) =>
          (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0
      : kind === 'boolean'
        ? (a: FjEmittable, b: FjEmittable) => Number(a) - Number(b)
        : (a: FjEmittable, b: FjEmittable) => {
            const x = numericKey(a);
            const y = numericKey(b);
            return x < y ? -1 : x > y ? 1 : 0;
          };
  const sorted = [...entries].sort((a, b) => compare(a[0], b[0]));
  const merged: Array<readonly [FjEmittable, FjEmittable]> = [];
  for (const e of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && compare(last[0], e[0]) === 0) merged[merged.length - 1] = [last[0], e[1]];
    else merged.push(e);
  }
  return merged;
}
