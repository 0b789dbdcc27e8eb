/**
 * Named filters: predicates the broker's operator registers by name (broker.conf `namedFilterModule`),
 * chosen by a subscription of expression type NAMED (or upstream's class-filter flag) whose subString
 * is the name. A client only ever sends a name; the code is the operator's.
 *
 * This layer never loads modules: the broker imports the operator's module, checks its shape with
 * namedFiltersFromModule and hands the result to a NamedFilterRegistry, which the FilterFactory
 * compiles NAMED expressions with.
 *
 * A filter sees a NamedFilterMessage, a frozen view of one stored record. It runs synchronously on the
 * broker's event loop for every message a NAMED pull examines, so it must be quick and must not block.
 * A filter that throws or returns anything but a boolean does not match that message; the broker logs
 * one warning per filter and reason, not one per message.
 *
 * Each call runs under a deadline (namedFilterTimeoutMillis): a call that runs longer is stopped, the
 * message does not match and a warning names the filter. After namedFilterMaxTimeouts such breaches
 * the filter is disabled until the broker restarts: it is no longer called and matches nothing, so a
 * filter that loops on every message costs the broker that many deadlines, not one per message.
 */
import { ValidationError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import {
  DEFAULT_MAX_MESSAGE_SIZE,
  decompressBody,
  MessageConst,
  MessageSysFlag,
  readStoredRecordHeader,
  type StoredRecordHeader,
  string2messageProperties,
} from '../common/message/index.js';
import { FilterCompileError, FilterEvaluationError } from './errors.js';
import type { CompiledFilterExpression, NamedFilterLookup } from './filter-factory.js';
import { NAMED_EXPRESSION_TYPE } from './named-expression.js';
import { DeadlineRunner, TIMED_OUT } from './named-filter-deadline.js';

/** namedFilterTimeoutMillis: longest one call of a named filter may run; 0 runs it with no deadline. */
export const DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS = 100;
/** namedFilterMaxTimeouts: breaches of the deadline after which a filter is disabled; 0 never disables. */
export const DEFAULT_NAMED_FILTER_MAX_TIMEOUTS = 3;

/** What a named filter is given: one stored message, read-only. */
export interface NamedFilterMessage {
  /** The topic; for a message pulled from a retry topic (`%RETRY%group`), its original topic. */
  readonly topic: string;
  /** The TAGS property. */
  readonly tags: string | undefined;
  /** The KEYS property as stored (several keys are separated by a space). */
  readonly keys: string | undefined;
  /** Every property (user and system), a fresh copy per message. */
  readonly properties: ReadonlyMap<string, string>;
  /** A copy of the body, inflated if the producer compressed it; read (and copied) only when used. */
  readonly body: Buffer;
  readonly queueId: number;
  readonly queueOffset: bigint;
  /** Milliseconds since the epoch. */
  readonly bornTimestamp: number;
  /** Milliseconds since the epoch. */
  readonly storeTimestamp: number;
  readonly reconsumeTimes: number;
}

/** Decides one message: true to deliver it. Must return a boolean synchronously. */
export type NamedFilterFunction = (message: NamedFilterMessage) => boolean;

/** A name: 1..255 characters, none of them whitespace or control characters. */
const NAME_RE = /^[^\s\p{Cc}]{1,255}$/u;

/** A client-supplied name for a remark or log line, quoted and cut short. */
export function describeFilterName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}

class StoredMessageView implements NamedFilterMessage {
  readonly topic: string;
  readonly tags: string | undefined;
  readonly keys: string | undefined;
  readonly properties: ReadonlyMap<string, string>;
  readonly queueId: number;
  readonly queueOffset: bigint;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
  readonly reconsumeTimes: number;
  readonly #record: Buffer;
  readonly #header: StoredRecordHeader;
  #body: Buffer | undefined;

  constructor(record: Buffer, header: StoredRecordHeader, topic: string | undefined) {
    this.#record = record;
    this.#header = header;
    const { propertiesOffset, propertiesLength, topicOffset, topicLength } = header;
    this.properties =
      propertiesLength === 0
        ? new Map()
        : string2messageProperties(
            record.toString('utf8', propertiesOffset, propertiesOffset + propertiesLength),
          );
    this.topic = topic ?? record.toString('utf8', topicOffset, topicOffset + topicLength);
    this.tags = this.properties.get(MessageConst.PROPERTY_TAGS);
    this.keys = this.properties.get(MessageConst.PROPERTY_KEYS);
    this.queueId = header.queueId;
    this.queueOffset = header.queueOffset;
    this.bornTimestamp = Number(header.bornTimestamp);
    this.storeTimestamp = Number(header.storeTimestamp);
    this.reconsumeTimes = header.reconsumeTimes;
    Object.freeze(this);
  }

  get body(): Buffer {
    if (this.#body === undefined) {
      const h = this.#header;
      const stored = this.#record.subarray(h.bodyOffset, h.bodyOffset + h.bodyLength);
      // A copy either way: the record is what the pull sends back, a filter must not change it.
      this.#body =
        (h.sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0 && h.bodyLength > 0
          ? decompressBody(stored, h.sysFlag, DEFAULT_MAX_MESSAGE_SIZE)
          : Buffer.from(stored);
    }
    return this.#body;
  }
}

/**
 * The view a named filter gets of a stored record (the whole record, as the store's commit-log stage
 * sees it). `topic` replaces the record's topic (the retry filter passes the original one). Throws
 * RemotingCommandError for a record that does not parse, ValidationError for a BLANK one.
 */
export function namedFilterMessage(record: Buffer, topic?: string): NamedFilterMessage {
  const header = readStoredRecordHeader(record, 0);
  if (header.kind !== 'message') throw new ValidationError('a BLANK record is not a message');
  return new StoredMessageView(record, header, topic);
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (value instanceof Promise) return 'a Promise';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isAsyncFunction(fn: NamedFilterFunction): boolean {
  const name = Object.getPrototypeOf(fn)?.constructor?.name;
  return name === 'AsyncFunction' || name === 'AsyncGeneratorFunction';
}

/**
 * The filters an imported module exports: its named export `filters` if it has one, else its default
 * export, either a Map or a plain object of name -> function. Throws one ValidationError listing every
 * problem (no such export, not a map, no filters, a bad name, a value that is not a synchronous
 * function).
 */
export function namedFiltersFromModule(namespace: unknown): Map<string, NamedFilterFunction> {
  if (typeof namespace !== 'object' || namespace === null) {
    throw new ValidationError(`the module is ${typeName(namespace)}, not a module namespace`);
  }
  const exports = namespace as Record<string, unknown>;
  const which = exports.filters !== undefined ? 'filters' : 'default';
  const value = exports[which];
  if (value === undefined) {
    throw new ValidationError(
      'it exports neither `filters` nor a default export (either must map filter names to functions)',
    );
  }
  let entries: Array<[unknown, unknown]>;
  if (value instanceof Map) entries = [...value.entries()];
  else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    entries = Object.entries(value);
  } else {
    throw new ValidationError(
      `its ${which} export is ${typeName(value)}, not a Map or an object of filter functions`,
    );
  }
  if (entries.length === 0) throw new ValidationError(`its ${which} export holds no filters`);
  const problems: string[] = [];
  const filters = new Map<string, NamedFilterFunction>();
  for (const [name, fn] of entries) {
    if (typeof name !== 'string' || !NAME_RE.test(name)) {
      problems.push(
        `filter name ${typeof name === 'string' ? describeFilterName(name) : typeName(name)} is not 1..255 characters without whitespace or control characters`,
      );
      continue;
    }
    if (typeof fn !== 'function') {
      problems.push(`filter ${describeFilterName(name)} is ${typeName(fn)}, not a function`);
      continue;
    }
    const filter = fn as NamedFilterFunction;
    if (isAsyncFunction(filter)) {
      problems.push(
        `filter ${describeFilterName(name)} is an async function; a filter returns a boolean synchronously`,
      );
      continue;
    }
    filters.set(name, filter);
  }
  if (problems.length > 0) throw new ValidationError(`its ${which} export: ${problems.join('; ')}`);
  return filters;
}

/** Why a filter's answer was not used. */
export type NamedFilterFailure = 'threw' | 'returned a non-boolean';

export interface NamedFilterRegistryOptions {
  /** Gets one warning per (filter, failure). */
  readonly logger?: Logger;
  /** Ends the "not configured" message: where the operator configures named filters. */
  readonly configureHint?: string;
  /** Deadline of one call in ms [DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS]; 0: no deadline (no guard cost). */
  readonly timeoutMillis?: number;
  /** Breaches before a filter is disabled [DEFAULT_NAMED_FILTER_MAX_TIMEOUTS]; 0: never disabled. */
  readonly maxTimeouts?: number;
}

/** A compiled NAMED expression: the commit-log stage hands it whole records. */
export class NamedFilterExpression implements CompiledFilterExpression {
  readonly type = NAMED_EXPRESSION_TYPE;

  constructor(
    readonly text: string,
    private readonly filter: NamedFilterFunction,
    private readonly registry: NamedFilterRegistry,
  ) {}

  /** Properties alone are not a message: a named filter is only ever run on a stored record. */
  evaluate(): boolean | null {
    throw new FilterEvaluationError(
      `named filter ${describeFilterName(this.text)} needs the stored message, not only its properties`,
    );
  }

  matches(): boolean {
    return false;
  }

  /** The filter's verdict on a stored record; false when the record does not parse. */
  matchesRecord(record: Buffer, topic?: string): boolean {
    let message: NamedFilterMessage;
    try {
      message = namedFilterMessage(record, topic);
    } catch {
      return false;
    }
    return this.registry.run(this.text, this.filter, message);
  }
}

/**
 * The broker's named filters. Starts unconfigured (every NAMED expression fails to compile, saying so);
 * configure() installs the operator's filters once, at broker start.
 */
export class NamedFilterRegistry implements NamedFilterLookup {
  #filters: ReadonlyMap<string, NamedFilterFunction> | undefined;
  readonly #compiled = new Map<string, NamedFilterExpression>();
  readonly #warned = new Set<string>();
  readonly #logger: Logger | undefined;
  readonly #configureHint: string | undefined;
  readonly #timeoutMillis: number;
  readonly #maxTimeouts: number;
  readonly #deadline = new DeadlineRunner();
  /** Deadline breaches per filter name; bounded by the number of configured filters. */
  readonly #timeouts = new Map<string, number>();
  readonly #disabled = new Set<string>();

  constructor(options: NamedFilterRegistryOptions = {}) {
    this.#logger = options.logger;
    this.#configureHint = options.configureHint;
    this.#timeoutMillis = options.timeoutMillis ?? DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS;
    this.#maxTimeouts = options.maxTimeouts ?? DEFAULT_NAMED_FILTER_MAX_TIMEOUTS;
    for (const [what, v] of [
      ['timeoutMillis', this.#timeoutMillis],
      ['maxTimeouts', this.#maxTimeouts],
    ] as const) {
      if (!Number.isInteger(v) || v < 0) {
        throw new ValidationError(`NamedFilterRegistry ${what} must be an integer >= 0, got ${v}`);
      }
    }
  }

  /** True once `name` broke its deadline namedFilterMaxTimeouts times: it is no longer run. */
  isDisabled(name: string): boolean {
    return this.#disabled.has(name);
  }

  /** How often `name` ran out of time. */
  timeoutCount(name: string): number {
    return this.#timeouts.get(name) ?? 0;
  }

  get configured(): boolean {
    return this.#filters !== undefined;
  }

  /** The registered names, in registration order. */
  get names(): string[] {
    return [...(this.#filters?.keys() ?? [])];
  }

  /** Installs the filters; a registry is configured once. */
  configure(filters: ReadonlyMap<string, NamedFilterFunction>): void {
    if (this.#filters !== undefined) throw new ValidationError('named filters are already configured');
    this.#filters = new Map(filters);
  }

  /** The compiled expression for `name` (one per name); throws FilterCompileError when there is none. */
  compile(name: string): NamedFilterExpression {
    const filters = this.#filters;
    if (filters === undefined) {
      const hint = this.#configureHint === undefined ? '' : ` (${this.#configureHint})`;
      throw new FilterCompileError(`named filters are not configured on this broker${hint}`);
    }
    const cached = this.#compiled.get(name);
    if (cached !== undefined) return cached;
    const filter = filters.get(name);
    if (filter === undefined) {
      throw new FilterCompileError(`named filter ${describeFilterName(name)} does not exist on this broker`);
    }
    const compiled = new NamedFilterExpression(name, filter, this);
    this.#compiled.set(name, compiled);
    return compiled;
  }

  /** Runs `filter` on `message`: its boolean, or false (and a warning, once) when it has none. */
  run(name: string, filter: NamedFilterFunction, message: NamedFilterMessage): boolean {
    if (this.#disabled.has(name)) return false;
    let result: unknown;
    try {
      if (this.#timeoutMillis === 0) result = filter(message);
      else {
        result = this.#deadline.run(() => filter(message), this.#timeoutMillis);
        if (result === TIMED_OUT) {
          this.onTimeout(name);
          return false;
        }
      }
    } catch (error) {
      this.warnOnce(name, 'threw', error instanceof Error ? error.message : String(error));
      return false;
    }
    if (typeof result === 'boolean') return result;
    // A rejected promise nobody awaits would end the process.
    if (result instanceof Promise) result.catch(() => undefined);
    this.warnOnce(name, 'returned a non-boolean', typeName(result));
    return false;
  }

  private onTimeout(name: string): void {
    const count = (this.#timeouts.get(name) ?? 0) + 1;
    this.#timeouts.set(name, count);
    const disable = this.#maxTimeouts > 0 && count >= this.#maxTimeouts;
    if (disable) this.#disabled.add(name);
    const fields = {
      filter: name,
      timeoutMillis: this.#timeoutMillis,
      timeouts: count,
      maxTimeouts: this.#maxTimeouts,
    };
    if (disable) {
      this.#logger?.error(
        'a named filter ran past its deadline too often and is disabled until restart: it matches nothing',
        fields,
      );
    } else {
      this.#logger?.warn(
        'a named filter ran past its deadline and was stopped; the message does not match',
        fields,
      );
    }
  }

  private warnOnce(name: string, failure: NamedFilterFailure, detail: string): void {
    const key = `${failure}\u0000${name}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger?.warn(
      'a named filter failed on a message, which then does not match (logged once per filter and reason)',
      { filter: name, reason: failure, detail: detail.length > 200 ? `${detail.slice(0, 200)}...` : detail },
    );
  }
}
