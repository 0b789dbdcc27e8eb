/**
 * How a broker.conf key is described (which upstream class owns it, how its text parses), the
 * parsing itself and the range check most settings get: what the groups of keys broker-config.ts
 * gathers (its own, broker-config-ha.ts, broker-config-http.ts) have in common.
 */
import { parseJavaBoolean, parseJavaInt, parseJavaLong } from '../common/java-parse.js';

export type ConfigOwner =
  | 'BrokerConfig'
  | 'NettyServerConfig'
  | 'NettyClientConfig'
  | 'MessageStoreConfig'
  | 'rocketmq-ts';

/** How a value's text parses (Java's properties2Object by setter parameter type). */
export type ConfigKind =
  | { readonly type: 'int' }
  | { readonly type: 'long' }
  | { readonly type: 'boolean' }
  | { readonly type: 'string'; readonly optional?: boolean }
  | { readonly type: 'enum'; readonly values: readonly string[] };

export interface ConfigKeySpec {
  readonly kind: ConfigKind;
  readonly owner: ConfigOwner;
}

export const INT = { type: 'int' } as const;
export const LONG = { type: 'long' } as const;
export const BOOL = { type: 'boolean' } as const;
export const STR = { type: 'string' } as const;
export const OPT_STR = { type: 'string', optional: true } as const;

/** Specs of the keys `owner` holds. */
export const ownedBy =
  (owner: ConfigOwner) =>
  (kind: ConfigKind): ConfigKeySpec => ({ kind, owner });

/** A value quoted for an error message, cut short when long. */
export function describeValue(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}...` : text);
}

/** Adds an error for each setting that is not > 0. */
export function checkPositive(settings: ReadonlyArray<readonly [string, number]>, errors: string[]): void {
  for (const [name, v] of settings) {
    if (!Number.isFinite(v) || v <= 0) errors.push(`${name} must be > 0, got ${v}`);
  }
}

/**
 * Parses one value as Java would for this key, or returns the reason it does not parse. Longs must
 * also be safe JS integers.
 */
export function parseConfigValue(kind: ConfigKind, text: string): { value: unknown } | { error: string } {
  switch (kind.type) {
    case 'int': {
      const v = parseJavaInt(text);
      return v === undefined ? { error: `not an int: ${describeValue(text)}` } : { value: v };
    }
    case 'long': {
      const v = parseJavaLong(text);
      if (v === undefined) return { error: `not a long: ${describeValue(text)}` };
      if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
        return { error: `out of range: ${describeValue(text)}` };
      }
      return { value: Number(v) };
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower !== 'true' && lower !== 'false')
        return { error: `not true or false: ${describeValue(text)}` };
      return { value: parseJavaBoolean(text) };
    }
    case 'string':
      return { value: text };
    case 'enum':
      // Enum.valueOf: exact, case-sensitive.
      return kind.values.includes(text)
        ? { value: text }
        : { error: `not one of ${kind.values.join(', ')}: ${describeValue(text)}` };
  }
}

/** Java's `toString()` of a setting, as GET_BROKER_CONFIG and `-p` print it; undefined for null. */
export function formatConfigValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}
