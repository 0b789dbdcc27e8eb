/**
 * The logger an application hands to a client or server (the `logger` option): any object with
 * `debug`, `info`, `warn` and `error` taking pino's call shape, fields first and the message second.
 * A pino or bunyan logger fits as it is, and so does `console`. The fields carry `component` (which
 * part of rocketmq-ts speaks), the event's metadata and, for a failure, `err`: the Error itself, with
 * its stack and `cause` chain (pino's `err` serializer prints both). Never a message body or a secret.
 */

export type LogMethod = (fields: Record<string, unknown>, msg: string) => void;

export interface RocketMQLogger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}
