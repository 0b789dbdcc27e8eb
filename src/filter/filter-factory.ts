/**
 * Compiles subscription expressions by type (upstream FilterFactory / FilterSpi / SqlFilter) and
 * caches the outcome by expression text, failures included, as SelectorParser's PARSE_CACHE does;
 * ours is a bounded LRU.
 */

import { ExpressionType } from '../common/protocol/subscription-data.js';
import { FilterCompileError } from './errors.js';
import { NAMED_EXPRESSION_TYPE } from './named-expression.js';
import type { EvaluationContext } from './sql/evaluate.js';
import { DEFAULT_SQL_MAX_DEPTH, DEFAULT_SQL_MAX_LENGTH, type SqlParseOptions } from './sql/parser.js';
import { parseSql92 } from './sql/sql-expression.js';

/** A compiled expression the broker evaluates against a message's properties. */
export interface CompiledFilterExpression {
  readonly type: string;
  readonly text: string;
  /** true, false or null; throws FilterEvaluationError where upstream's evaluation throws. */
  evaluate(ctx?: EvaluationContext): boolean | null;
  /** TRUE matches; FALSE, null and evaluation errors do not. */
  matches(ctx?: EvaluationContext): boolean;
  /**
   * Present on expressions that judge the whole stored record rather than its properties (NAMED):
   * the broker's commit-log stage calls this instead of matches. `topic` replaces the record's own
   * (a retried message is judged under its original topic).
   */
  matchesRecord?(record: Buffer, topic?: string): boolean;
}

/** Where NAMED expressions compile (the broker's NamedFilterRegistry); throws FilterCompileError. */
export interface NamedFilterLookup {
  compile(name: string): CompiledFilterExpression;
}

/** Compiles one expression type (upstream FilterSpi); throws FilterCompileError for a bad expression. */
export type FilterCompileFunction = (expression: string) => CompiledFilterExpression;

export const DEFAULT_FILTER_CACHE_SIZE = 256;

export interface FilterFactoryOptions extends SqlParseOptions {
  /** Compiled expressions (and failures) kept, least recently used dropped first. 0 disables the cache. */
  readonly cacheSize?: number;
  /**
   * Compiles NAMED expressions. The lookup keeps one expression per name itself, and its outcome may
   * change once (when the broker installs the operator's filters), so NAMED is never cached here.
   */
  readonly namedFilters?: NamedFilterLookup;
}

type CacheEntry = { readonly ok: CompiledFilterExpression } | { readonly error: FilterCompileError };

export class FilterFactory {
  private readonly compilers = new Map<string, FilterCompileFunction>();
  private readonly cache = new Map<string, CacheEntry>();
  private readonly uncachedTypes = new Set<string>();
  private readonly cacheSize: number;
  /** Longer texts are compiled (and refused) without being kept: a cache key is the whole text. */
  private readonly maxCachedLength: number;

  constructor(options: FilterFactoryOptions = {}) {
    this.cacheSize = options.cacheSize ?? DEFAULT_FILTER_CACHE_SIZE;
    const sqlOptions: SqlParseOptions = {
      maxLength: options.maxLength ?? DEFAULT_SQL_MAX_LENGTH,
      maxDepth: options.maxDepth ?? DEFAULT_SQL_MAX_DEPTH,
      rejectTrailingInput: options.rejectTrailingInput ?? false,
    };
    this.maxCachedLength = sqlOptions.maxLength ?? DEFAULT_SQL_MAX_LENGTH;
    this.compilers.set(ExpressionType.SQL92, (expression) => parseSql92(expression, sqlOptions));
    const named = options.namedFilters;
    if (named !== undefined) {
      this.compilers.set(NAMED_EXPRESSION_TYPE, (name) => named.compile(name));
      this.uncachedTypes.add(NAMED_EXPRESSION_TYPE);
    }
  }

  /** FilterFactory.register: adds an expression type; a type cannot be registered twice. */
  register(type: string, compile: FilterCompileFunction): void {
    if (this.compilers.has(type)) throw new FilterCompileError(`Filter spi type(${type}) already exist!`);
    this.compilers.set(type, compile);
  }

  unregister(type: string): boolean {
    this.clearCache();
    this.uncachedTypes.delete(type);
    return this.compilers.delete(type);
  }

  /** Whether an expression type has a compiler (upstream: FilterFactory.get(type) != null). */
  supports(type: string): boolean {
    return this.compilers.has(type);
  }

  /**
   * Compiles, or returns the cached outcome for the same type and text. Throws FilterCompileError
   * (SqlParseError for SQL92) for a bad expression or an unknown type.
   */
  compile(type: string, expression: string): CompiledFilterExpression {
    const compiler = this.compilers.get(type);
    if (compiler === undefined) {
      throw new FilterCompileError(`The broker does not support consumer to filter message by ${type}`);
    }
    if (this.uncachedTypes.has(type) || expression.length > this.maxCachedLength) return compiler(expression);
    const key = `${type}\u0000${expression}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      if ('ok' in cached) return cached.ok;
      throw cached.error;
    }
    let entry: CacheEntry;
    try {
      entry = { ok: compiler(expression) };
    } catch (error) {
      if (!(error instanceof FilterCompileError)) throw error;
      entry = { error };
    }
    if (this.cacheSize > 0) {
      this.cache.set(key, entry);
      if (this.cache.size > this.cacheSize) {
        const oldest = this.cache.keys().next();
        if (oldest.done !== true) this.cache.delete(oldest.value);
      }
    }
    if ('ok' in entry) return entry.ok;
    throw entry.error;
  }

  /** Entries in the cache (for tests and metrics). */
  get cachedCount(): number {
    return this.cache.size;
  }

  clearCache(): void {
    this.cache.clear();
  }
}
