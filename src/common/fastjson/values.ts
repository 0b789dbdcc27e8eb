/**
 * Value model shared by the fastjson-compatible parser and emitter.
 *
 * Parsing gives `FastjsonValue`: JSON objects whose keys are all strings, numbers or bare identifiers
 * become plain records (a number key is stored as its decimal string, so `{0:"a"}` and `{"0":"a"}` read
 * the same); an object with at least one object or array key (a fastjson `Map<MessageQueue, X>`) becomes
 * an `FjMap`, which keeps every key with its type. Integers that fit a JS number safely are numbers,
 * larger ones are bigints (Java longs such as offsets and timestamps).
 *
 * Emitting takes `FjEmittable`, a superset: a plain object is written as a Java bean (fields sorted),
 * an `FjMap` as a Java Map (entries in the given order), and the wrappers below carry the Java types
 * that JS cannot express on its own.
 */

/** A parsed value. */
export type FastjsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | FastjsonValue[]
  | FastjsonRecord
  | FjMap;

/** A parsed JSON object whose keys were all plain (strings, numbers, identifiers). */
export interface FastjsonRecord {
  [key: string]: FastjsonValue;
}

/** What the emitter accepts. `undefined` and `null` bean fields or map values are left out. */
export type FjEmittable =
  | null
  | undefined
  | boolean
  | number
  | bigint
  | string
  | JavaDouble
  | FjSet
  | FjMap<FjEmittable, FjEmittable>
  | readonly FjEmittable[]
  | FjEmittableRecord;

/** A plain object to be written as a Java bean. */
export interface FjEmittableRecord {
  readonly [key: string]: FjEmittable;
}

/**
 * A Java Map, in iteration order. Used by the parser for objects that have object or array keys, and by
 * callers to emit a map whose keys are not all strings (`{0:"addr"}`) or whose order is not sorted.
 * Duplicate keys are kept as found; `get` returns the last one, like Java's `put` would have kept.
 */
export class FjMap<K = FastjsonValue, V = FastjsonValue> {
  readonly entries: Array<[K, V]>;
  /**
   * True for a LinkedHashMap or SortedMap: fastjson's MapSortField leaves those in their own order
   * (MapSerializer only re-sorts other maps through a TreeMap).
   */
  readonly keepOrder: boolean;

  constructor(entries: Iterable<readonly [K, V]> = [], options?: { readonly keepOrder?: boolean }) {
    this.entries = [];
    for (const [k, v] of entries) this.entries.push([k, v]);
    this.keepOrder = options?.keepOrder ?? false;
  }

  /** A map over a record's entries in the record's key order (or in `order` when given). */
  static fromRecord<V>(record: { readonly [key: string]: V }, order?: readonly string[]): FjMap<string, V> {
    const map = new FjMap<string, V>();
    for (const k of order ?? Object.keys(record)) {
      if (Object.hasOwn(record, k)) map.entries.push([k, record[k] as V]);
    }
    return map;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The value of the last entry whose key equals `key` (deep equality for object and array keys). */
  get(key: K): V | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i]!;
      if (fjEquals(e[0], key)) return e[1];
    }
    return undefined;
  }

  has(key: K): boolean {
    for (const e of this.entries) if (fjEquals(e[0], key)) return true;
    return false;
  }

  /** Replaces the value of an equal key in place (Java `put` keeps the position), else appends. */
  set(key: K, value: V): this {
    for (const e of this.entries) {
      if (fjEquals(e[0], key)) {
        e[1] = value;
        return this;
      }
    }
    this.entries.push([key, value]);
    return this;
  }

  keys(): K[] {
    return this.entries.map((e) => e[0]);
  }

  values(): V[] {
    return this.entries.map((e) => e[1]);
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}

/** A Java `double` (or `Double`): written the way fastjson writes doubles, so 0 becomes `0.0`. */
export class JavaDouble {
  constructor(readonly value: number) {}
}

export function javaDouble(value: number): JavaDouble {
  return new JavaDouble(value);
}

/**
 * A Java Set (or any Collection that is not a List). fastjson's CollectionCodec writes it like a list
 * but never pretty-prints it, unlike ListSerializer. Items are written in the given order: for a HashSet
 * of strings see `javaHashMapOrder`.
 */
export class FjSet<T extends FjEmittable = FjEmittable> {
  readonly items: readonly T[];

  constructor(items: Iterable<T>) {
    this.items = [...items];
  }
}

export function javaSet<T extends FjEmittable>(items: Iterable<T>): FjSet<T> {
  return new FjSet(items);
}

/**
 * Structural equality over parsed and emittable values. Numbers compare with `===` (so 0 equals -0),
 * a bigint equals a number of the same integer value, record key order does not matter, FjMap and
 * array order does.
 */
export function fjEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if (
      (typeof a === 'bigint' || typeof a === 'number') &&
      (typeof b === 'bigint' || typeof b === 'number')
    ) {
      // biome-ignore lint/suspicious/noDoubleEquals: bigint/number comparison by value is intended
      return a == b;
    }
    return false;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof JavaDouble) return b instanceof JavaDouble && a.value === b.value;
  if (a instanceof FjMap) {
    if (!(b instanceof FjMap) || a.entries.length !== b.entries.length) return false;
    for (let i = 0; i < a.entries.length; i++) {
      const x = a.entries[i]!;
      const y = b.entries[i]!;
      if (!fjEquals(x[0], y[0]) || !fjEquals(x[1], y[1])) return false;
    }
    return true;
  }
  if (a instanceof FjSet) return b instanceof FjSet && fjEquals(a.items, b.items);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!fjEquals(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || b instanceof FjMap || b instanceof FjSet || b instanceof JavaDouble) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  if (ka.length !== Object.keys(rb).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(rb, k) || !fjEquals(ra[k], rb[k])) return false;
  }
  return true;
}
