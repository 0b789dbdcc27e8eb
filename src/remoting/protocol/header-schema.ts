/**
 * Typed custom headers: the `extFields` map of a RemotingCommand read and written as a header class
 * of upstream (`RemotingCommand.decodeCommandCustomHeader` / `makeCustomHeaderToNet`).
 *
 * A header is declared once (`defineHeader`) as an object of fields in Java declaration order, own
 * fields first and inherited ones (RpcRequestHeader's `bname`) last. The declaration drives both
 * the runtime codec and the TypeScript types of decoded and encodable values.
 *
 * Java semantics kept:
 * - values travel as Java's `toString()`: decimal ints and longs, `true`/`false`;
 * - a null field is left out, but Java primitives (and boxed fields with an initializer) always
 *   have a value, so they are always written and decode to that value when absent;
 * - `@CFNotNull` fields missing on decode fail with upstream's text "the custom field <x> is null",
 *   response code SYSTEM_ERROR. Upstream skips that check when a command has no extFields at all
 *   and when the header is a FastCodesHeader (it only logs); we always check, as any such header
 *   makes the Java processor fail later with a NullPointerException anyway;
 * - booleans parse like `Boolean.parseBoolean` (case-insensitive `true`, everything else false);
 *   ints and longs like `Integer.parseInt` / `Long.parseLong` restricted to ASCII digits;
 * - unknown keys are ignored (5.x peers add `ns`, `nsd`, `oway`...).
 * Where we differ on bad numbers: Java logs a value that fails to parse and leaves the field null.
 * For a required field we throw a HeaderFieldError instead (Java would fail later on the null);
 * for an optional field we do what Java does and treat the value as absent (undefined, or the
 * primitive default), so a request Java serves is served here too.
 *
 * Encoding order: `makeCustomHeaderToNet` walks `getClazzFields`, which collects the fields of the
 * class and its superclasses into a HashSet<Field>, so Java inserts the keys into extFields in
 * that HashSet's iteration order (Field.hashCode = declaring class name hash ^ field name hash).
 * `encodeHeader` inserts keys in that same order (computed once per schema) so that a serializer
 * emulating Java's HashMap iteration reproduces Java's byte order exactly. For the four
 * FastCodesHeader classes Java's ROCKETMQ serializer instead writes the fields itself, in the
 * order of their `encode(ByteBuf)`, before the extFields map: `encodeHeaderFast` gives that.
 */

import { ValidationError } from '../../common/errors.js';
import { javaStringHashCode } from '../../common/java-hash.js';
import {
  javaDoubleToString,
  parseJavaBoolean,
  parseJavaDouble,
  parseJavaInt,
  parseJavaLong,
} from '../../common/java-parse.js';

export { javaDoubleToString, parseJavaBoolean, parseJavaDouble, parseJavaInt, parseJavaLong };

export type FieldType = 'string' | 'int' | 'long' | 'boolean' | 'double';

/** TypeScript type of each field type: Java int -> number (int32), long -> bigint (int64). */
export interface FieldTypeMap {
  string: string;
  int: number;
  long: bigint;
  boolean: boolean;
  double: number;
}

export type FieldValue = FieldTypeMap[FieldType];
type PrimitiveType = Exclude<FieldType, 'string'>;

/** One field as declared. Build it with `req`, `opt`, `prim`, `reqPrim`, `withDefault`. */
export interface FieldSpec<
  T extends FieldType = FieldType,
  R extends boolean = boolean,
  D extends boolean = boolean,
> {
  readonly type: T;
  /** `@CFNotNull`: decoding fails when the key is absent. */
  readonly required: R;
  /** Java primitive or initialised field: always written, and absent on decode means the default. */
  readonly hasDefault: D;
  readonly defaultValue: FieldTypeMap[T] | undefined;
  /** Wire key (the Java field name) when it differs from the TypeScript property name. */
  readonly key: string | undefined;
  /** Fully qualified declaring class when the field is inherited. */
  readonly declaredIn: string | undefined;
}

export type FieldMap = { readonly [prop: string]: FieldSpec };

function field<T extends FieldType, R extends boolean, D extends boolean>(
  type: T,
  required: R,
  hasDefault: D,
  defaultValue: FieldTypeMap[T] | undefined,
): FieldSpec<T, R, D> {
  return { type, required, hasDefault, defaultValue, key: undefined, declaredIn: undefined };
}

/** A boxed `@CFNotNull` field with no initializer. */
export function req<T extends FieldType>(type: T): FieldSpec<T, true, false> {
  return field(type, true, false, undefined);
}

/** A boxed field that may be null. */
export function opt<T extends FieldType>(type: T): FieldSpec<T, false, false> {
  return field(type, false, false, undefined);
}

function zeroOf<T extends PrimitiveType>(type: T): FieldTypeMap[T];
function zeroOf(type: PrimitiveType): FieldValue {
  switch (type) {
    case 'int':
    case 'double':
      return 0;
    case 'long':
      return 0n;
    case 'boolean':
      return false;
  }
}

/** A Java primitive without `@CFNotNull`: always written, 0/false when absent. */
export function prim<T extends PrimitiveType>(type: T): FieldSpec<T, false, true> {
  return field(type, false, true, zeroOf(type));
}

/** A Java primitive with `@CFNotNull`: always written (0/false unless set), required on decode. */
export function reqPrim<T extends PrimitiveType>(type: T): FieldSpec<T, true, true> {
  return field(type, true, true, zeroOf(type));
}

/** A boxed field with an initializer (`Boolean order = false`), optionally `@CFNotNull`. */
export function withDefault<T extends FieldType, R extends boolean>(
  type: T,
  value: FieldTypeMap[T],
  required: R,
): FieldSpec<T, R, true> {
  return field(type, required, true, value);
}

/** The same field under another wire key (SendMessageRequestHeaderV2's single letters). */
export function onWire<S extends FieldSpec>(key: string, spec: S): S {
  return { ...spec, key };
}

/** The same field, declared by a superclass (needed for Java's field order). */
export function inherited<S extends FieldSpec>(javaClass: string, spec: S): S {
  return { ...spec, declaredIn: javaClass };
}

type ValueOf<S extends FieldSpec> = FieldTypeMap[S['type']];
type AlwaysSet<S extends FieldSpec> = S['required'] extends true
  ? true
  : S['hasDefault'] extends true
    ? true
    : false;
type InputRequiredKeys<F extends FieldMap> = {
  [K in keyof F]: F[K]['required'] extends true ? (F[K]['hasDefault'] extends true ? never : K) : never;
}[keyof F];

/** A decoded header: required and defaulted fields are always set, the others may be undefined. */
export type HeaderValue<F extends FieldMap> = {
  -readonly [K in keyof F]: AlwaysSet<F[K]> extends true ? ValueOf<F[K]> : ValueOf<F[K]> | undefined;
};

/** What `encodeHeader` accepts: required fields without a Java default must be given. */
export type HeaderInput<F extends FieldMap> = {
  [K in InputRequiredKeys<F>]: ValueOf<F[K]>;
} & {
  [K in Exclude<keyof F, InputRequiredKeys<F>>]?: ValueOf<F[K]> | undefined;
};

/** One field ready for the codec. */
export interface HeaderField {
  /** TypeScript property name. */
  readonly prop: string;
  /** Wire key, which is the Java field name. */
  readonly key: string;
  readonly type: FieldType;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue: FieldValue | undefined;
  /** The default as written on the wire, for fields with a default. */
  readonly defaultText: string | undefined;
  readonly declaredIn: string;
}

export interface HeaderSchema<F extends FieldMap = FieldMap> {
  /** Java simple class name, e.g. `PullMessageRequestHeader`. */
  readonly name: string;
  /** Java fully qualified class name. */
  readonly javaClass: string;
  /** The declaration, kept for typing. */
  readonly spec: F;
  /** Declaration order: own fields, then inherited ones. */
  readonly fields: readonly HeaderField[];
  /** The order `makeCustomHeaderToNet` inserts keys in (see the file comment). */
  readonly javaOrder: readonly HeaderField[];
  /** FastCodesHeader classes only: the fields their `encode(ByteBuf)` writes, in that order. */
  readonly fastOrder: readonly HeaderField[] | undefined;
  /**
   * Every property at its value when absent (undefined or the Java default). Decoding starts from a
   * copy, so each decoded value of a schema gets all its properties at once and shares one shape.
   */
  readonly blank: Readonly<Record<string, FieldValue | undefined>>;
}

/** Any header schema, whatever its fields. */
export type AnyHeaderSchema = HeaderSchema<FieldMap>;
/** The decoded value type of a schema: `HeaderOf<typeof PullMessageRequestHeader>`. */
export type HeaderOf<S> = S extends HeaderSchema<infer F> ? HeaderValue<F> : never;
/** The encodable value type of a schema. */
export type HeaderInputOf<S> = S extends HeaderSchema<infer F> ? HeaderInput<F> : never;

export interface HeaderDefinition<F extends FieldMap> {
  readonly name: string;
  readonly javaClass: string;
  readonly fields: F;
  /** Set for FastCodesHeader classes: property names in `encode(ByteBuf)` order. */
  readonly fastCodes?: readonly (keyof F & string)[];
}

/** A header field that is missing or malformed. The message of a missing field is upstream's. */
export class HeaderFieldError extends ValidationError {
  readonly header: string;
  readonly field: string;
  readonly value: string | undefined;

  constructor(header: string, field: string, value: string | undefined, message: string) {
    super(message);
    this.header = header;
    this.field = field;
    this.value = value;
  }
}

export function defineHeader<const F extends FieldMap>(def: HeaderDefinition<F>): HeaderSchema<F> {
  const own: HeaderField[] = [];
  const inheritedFields: HeaderField[] = [];
  const keys = new Set<string>();
  for (const prop of Object.keys(def.fields)) {
    const spec = def.fields[prop] as FieldSpec;
    const key = spec.key ?? prop;
    if (keys.has(key)) throw new Error(`${def.name}: duplicate wire key ${key}`);
    keys.add(key);
    const compiled: HeaderField = {
      prop,
      key,
      type: spec.type,
      required: spec.required,
      hasDefault: spec.hasDefault,
      defaultValue: spec.defaultValue,
      defaultText:
        spec.hasDefault && spec.defaultValue !== undefined
          ? formatValue(spec.type, spec.defaultValue)
          : undefined,
      declaredIn: spec.declaredIn ?? def.javaClass,
    };
    (spec.declaredIn === undefined ? own : inheritedFields).push(compiled);
  }
  const fields = [...own, ...inheritedFields];
  let fastOrder: HeaderField[] | undefined;
  if (def.fastCodes !== undefined) {
    fastOrder = def.fastCodes.map((prop) => {
      const f = fields.find((x) => x.prop === prop);
      if (f === undefined) throw new Error(`${def.name}: fastCodes names unknown field ${prop}`);
      return f;
    });
  }
  const blank: Record<string, FieldValue | undefined> = {};
  for (const f of fields) blank[f.prop] = f.defaultValue;
  return {
    name: def.name,
    javaClass: def.javaClass,
    spec: def.fields,
    fields,
    javaOrder: javaHashSetOrder(def.name, fields),
    fastOrder,
    blank,
  };
}

const TREEIFY_THRESHOLD = 8;

/**
 * Iteration order of a `new HashSet<Field>()` filled with `fields` in order (the class's own
 * fields, then each superclass's), as Java 8+ HashMap lays it out: buckets by
 * `(h ^ h >>> 16) & (capacity - 1)`, insertion order inside a bucket (resizes keep it), capacity
 * 16 doubling whenever size exceeds 0.75 x capacity. A bucket long enough to be treeified is not
 * emulated and fails the definition, so a wrong order can never go unnoticed.
 * Header classes of 4.9.8 declare no static fields (which would also occupy the set).
 */
function javaHashSetOrder(name: string, fields: readonly HeaderField[]): HeaderField[] {
  const spread = fields.map((f) => {
    const h = javaStringHashCode(f.declaredIn) ^ javaStringHashCode(f.key);
    return h ^ (h >>> 16);
  });
  let capacity = 16;
  for (let i = 0; i < fields.length; i++) {
    let sameBucket = 0;
    for (let j = 0; j < i; j++) {
      if (((spread[j] as number) & (capacity - 1)) === ((spread[i] as number) & (capacity - 1))) sameBucket++;
    }
    if (sameBucket >= TREEIFY_THRESHOLD) throw new Error(`${name}: Java would treeify a field bucket`);
    if (i + 1 > capacity * 0.75) capacity *= 2;
  }
  const order = fields.map((_, i) => i);
  order.sort((a, b) => {
    const ba = (spread[a] as number) & (capacity - 1);
    const bb = (spread[b] as number) & (capacity - 1);
    return ba - bb || a - b;
  });
  return order.map((i) => fields[i] as HeaderField);
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const MAX_MESSAGE_VALUE = 64;

function quote(value: string): string {
  return JSON.stringify(value.length > MAX_MESSAGE_VALUE ? `${value.slice(0, MAX_MESSAGE_VALUE)}...` : value);
}

function missingField(schema: HeaderSchema, f: HeaderField): HeaderFieldError {
  return new HeaderFieldError(schema.name, f.key, undefined, `the custom field <${f.key}> is null`);
}

function invalidField(schema: HeaderSchema, f: HeaderField, raw: string): HeaderFieldError {
  return new HeaderFieldError(
    schema.name,
    f.key,
    raw,
    `the custom field <${f.key}> of ${schema.name} is not a valid ${f.type}: ${quote(raw)}`,
  );
}

/**
 * Reads a header from extFields. A missing or absent extFields map reads as empty. Values that are
 * not strings (a null from a lenient parser) count as absent, as a null does in Java.
 */
export function decodeHeader<F extends FieldMap>(
  schema: HeaderSchema<F>,
  extFields: Readonly<Record<string, string | undefined>> | undefined,
): HeaderValue<F> {
  const out: Record<string, FieldValue | undefined> = { ...schema.blank };
  const fields = schema.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as HeaderField;
    const raw = extFields === undefined ? undefined : extFields[f.key];
    if (typeof raw !== 'string') {
      if (f.required) throw missingField(schema, f);
      continue;
    }
    let parsed: FieldValue | undefined;
    switch (f.type) {
      case 'string':
        parsed = raw;
        break;
      case 'int':
        parsed = parseJavaInt(raw);
        break;
      case 'long':
        parsed = parseJavaLong(raw);
        break;
      case 'boolean':
        parsed = parseJavaBoolean(raw);
        break;
      case 'double':
        parsed = parseJavaDouble(raw);
        break;
    }
    if (parsed !== undefined) out[f.prop] = parsed;
    else if (f.required) throw invalidField(schema, f, raw);
  }
  return out as HeaderValue<F>;
}

/**
 * Writes a header as Java's `makeCustomHeaderToNet` does, into `into` (a command's existing
 * extFields, whose earlier keys keep their place) or a new object. Undefined fields are left out,
 * fields with a Java default are always written. Throws a HeaderFieldError for a missing required
 * field or a value of the wrong type or range: we never put a header on the wire that a Java
 * peer would reject.
 */
export function encodeHeader<F extends FieldMap>(
  schema: HeaderSchema<F>,
  value: HeaderInput<F>,
  into: Record<string, string> = {},
): Record<string, string> {
  writeFields(schema, schema.javaOrder, value as Readonly<Record<string, unknown>>, into);
  return into;
}

/**
 * Writes a header as Java's ROCKETMQ serializer does for a FastCodesHeader: only the fields its
 * `encode(ByteBuf)` writes, in that order (SendMessageRequestHeaderV2 leaves out the inherited
 * `bname`). These entries precede the command's extFields in the frame, so they are returned
 * separately. For other headers this is `encodeHeader`.
 */
export function encodeHeaderFast<F extends FieldMap>(
  schema: HeaderSchema<F>,
  value: HeaderInput<F>,
  into: Record<string, string> = {},
): Record<string, string> {
  writeFields(schema, schema.fastOrder ?? schema.javaOrder, value as Readonly<Record<string, unknown>>, into);
  return into;
}

function writeFields(
  schema: HeaderSchema,
  order: readonly HeaderField[],
  value: Readonly<Record<string, unknown>>,
  out: Record<string, string>,
): void {
  for (let i = 0; i < order.length; i++) {
    const f = order[i] as HeaderField;
    const v = value[f.prop];
    if (v === undefined || v === null) {
      if (f.defaultText !== undefined) out[f.key] = f.defaultText;
      else if (f.required) throw missingField(schema, f);
      continue;
    }
    const text = formatValue(f.type, v);
    if (text === undefined) {
      throw new HeaderFieldError(
        schema.name,
        f.key,
        undefined,
        `the custom field <${f.key}> of ${schema.name} needs a ${f.type}, got ${describe(v)}`,
      );
    }
    out[f.key] = text;
  }
}

function describe(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return `${typeof v} ${String(v)}`;
  return typeof v;
}

/** Java's `toString()` of a field value, or undefined when the value does not fit the type. */
function formatValue(type: FieldType, v: unknown): string | undefined {
  switch (type) {
    case 'string':
      return typeof v === 'string' ? v : undefined;
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && v >= INT_MIN && v <= INT_MAX
        ? String(v)
        : undefined;
    case 'long':
      return typeof v === 'bigint' && v >= LONG_MIN && v <= LONG_MAX ? v.toString() : undefined;
    case 'boolean':
      return typeof v === 'boolean' ? (v ? 'true' : 'false') : undefined;
    case 'double':
      return typeof v === 'number' ? javaDoubleToString(v) : undefined;
  }
}
