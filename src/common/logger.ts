/**
 * Structured logging: one JSON line per event, quiet by default. Components receive a Logger so tests
 * can capture lines; nothing here ever formats payloads or credentials — callers pass only metadata.
 */

export const LogLevel = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevelName = keyof typeof LogLevel;

export type LogFields = Record<string, string | number | boolean | bigint | undefined>;

export interface LogRecord {
  level: Exclude<LogLevelName, 'silent'>;
  component: string;
  msg: string;
  fields: LogFields;
}

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(component: string): Logger;
}

export type LogSink = (record: LogRecord) => void;

function levelFromEnv(): LogLevelName {
  const value = globalThis.process?.env?.RMQ_LOG_LEVEL;
  return value !== undefined && value in LogLevel ? (value as LogLevelName) : 'warn';
}

const stderrSink: LogSink = (record) => {
  const line: Record<string, string | number | boolean> = {
    time: new Date().toISOString(),
    level: record.level,
    component: record.component,
    msg: record.msg,
  };
  for (const [k, v] of Object.entries(record.fields)) {
    if (v !== undefined) line[k] = typeof v === 'bigint' ? v.toString() : v;
  }
  globalThis.process?.stderr?.write(`${JSON.stringify(line)}\n`);
};

export interface LoggerOptions {
  level?: LogLevelName;
  sink?: LogSink;
}

export function createLogger(component: string, options: LoggerOptions = {}): Logger {
  const threshold = LogLevel[options.level ?? levelFromEnv()];
  const sink = options.sink ?? stderrSink;
  const emit = (level: Exclude<LogLevelName, 'silent'>, msg: string, fields: LogFields | undefined) => {
    if (LogLevel[level] >= threshold) sink({ level, component, msg, fields: fields ?? {} });
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (name) => createLogger(`${component}.${name}`, options),
  };
}
