/**
 * Structured logging: one JSON line per event, quiet by default. Components receive a Logger so tests
 * can capture lines; nothing here ever formats payloads or credentials — callers pass only metadata.
 */

import type { RocketMQLogger } from './logger-interface.js';

export const LogLevel = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevelName = keyof typeof LogLevel;

export type LogFields = Record<string, string | number | boolean | bigint | undefined>;

export interface LogRecord {
  level: Exclude<LogLevelName, 'silent'>;
  component: string;
  msg: string;
  fields: LogFields;
  /** The failure the line is about, kept whole: its stack and `cause` chain reach the sink. */
  err?: unknown;
}

/**
 * The logger every component writes to. `err`, when given, is the failure itself (its text usually
 * also sits in `fields.error` for those who grep the line).
 */
export interface Logger {
  debug(msg: string, fields?: LogFields, err?: unknown): void;
  info(msg: string, fields?: LogFields, err?: unknown): void;
  warn(msg: string, fields?: LogFields, err?: unknown): void;
  error(msg: string, fields?: LogFields, err?: unknown): void;
  child(component: string): Logger;
}

export type LogSink = (record: LogRecord) => void;

function levelFromEnv(): LogLevelName {
  const value = globalThis.process?.env?.RMQ_LOG_LEVEL;
  return value !== undefined && value in LogLevel ? (value as LogLevelName) : 'warn';
}

/** How deep a `cause` chain is followed in a log line (a cycle or a long chain must not grow it). */
const MAX_CAUSE_DEPTH = 5;

/** An error as JSON: type, message, code, stack and its causes; anything else as its text. */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return String(error);
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (error.stack !== undefined) out.stack = error.stack;
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH)
    out.cause = serializeError(error.cause, depth + 1);
  return out;
}

const stderrSink: LogSink = (record) => {
  const line: Record<string, unknown> = {
    time: new Date().toISOString(),
    level: record.level,
    component: record.component,
    msg: record.msg,
  };
  for (const [k, v] of Object.entries(record.fields)) {
    if (v !== undefined) line[k] = typeof v === 'bigint' ? v.toString() : v;
  }
  if (record.err !== undefined) line.err = serializeError(record.err);
  globalThis.process?.stderr?.write(`${JSON.stringify(line)}\n`);
};

/** Lines for an application's own logger: it filters by level itself, so all of them go to it. */
function sinkOf(target: RocketMQLogger): LogSink {
  return (record) => {
    const fields: Record<string, unknown> = { component: record.component };
    for (const [k, v] of Object.entries(record.fields)) if (v !== undefined) fields[k] = v;
    if (record.err !== undefined) fields.err = record.err;
    target[record.level](fields, record.msg);
  };
}

const OURS = Symbol('rocketmq-ts.logger');

/**
 * The Logger of a `logger` option: ours as it is, an application's (pino, console...) wrapped, none
 * the default at `RMQ_LOG_LEVEL`. `level` applies to the default only.
 */
export function adoptLogger(
  given: Logger | RocketMQLogger | undefined,
  component: string,
  level?: LogLevelName,
): Logger {
  if (given === undefined) return createLogger(component, level === undefined ? {} : { level });
  if (isOurs(given)) return given;
  return createLogger(component, { level: 'debug', sink: sinkOf(given) });
}

function isOurs(logger: Logger | RocketMQLogger): logger is Logger {
  return OURS in logger;
}

export interface LoggerOptions {
  level?: LogLevelName;
  sink?: LogSink;
}

export function createLogger(component: string, options: LoggerOptions = {}): Logger {
  const threshold = LogLevel[options.level ?? levelFromEnv()];
  const sink = options.sink ?? stderrSink;
  const emit = (
    level: Exclude<LogLevelName, 'silent'>,
    msg: string,
    fields: LogFields | undefined,
    err: unknown,
  ) => {
    if (LogLevel[level] < threshold) return;
    const record: LogRecord = { level, component, msg, fields: fields ?? {} };
    if (err !== undefined) record.err = err;
    sink(record);
  };
  const logger: Logger & { [OURS]: true } = {
    debug: (msg, fields, err) => emit('debug', msg, fields, err),
    info: (msg, fields, err) => emit('info', msg, fields, err),
    warn: (msg, fields, err) => emit('warn', msg, fields, err),
    error: (msg, fields, err) => emit('error', msg, fields, err),
    child: (name) => createLogger(`${component}.${name}`, options),
    [OURS]: true,
  };
  return logger;
}
