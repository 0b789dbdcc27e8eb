/**
 * Error classes shared by every layer. Each carries the RocketMQ response code that a peer would
 * see for the same fault, so a processor can turn any thrown error into a response without a table,
 * says whether trying again can help, so a client knows whether to retry without a table either, and
 * has a stable string `code`: response codes overlap (a lost connection, bad input and a broker's
 * SYSTEM_ERROR all carry 1), the string code tells them apart. docs/errors.md lists every code.
 */

/** The stable `code` of every error class; values never change once released. */
export const ErrorCode = {
  /** An error of ours without a more specific code. */
  INTERNAL: 'ERR_ROCKETMQ',
  TIMEOUT: 'ERR_ROCKETMQ_TIMEOUT',
  CONNECT: 'ERR_ROCKETMQ_CONNECT',
  CONNECTION_CLOSED: 'ERR_ROCKETMQ_CONNECTION_CLOSED',
  TOO_MANY_REQUESTS: 'ERR_ROCKETMQ_TOO_MANY_REQUESTS',
  ABORTED: 'ERR_ROCKETMQ_ABORTED',
  DECODE: 'ERR_ROCKETMQ_DECODE',
  VALIDATION: 'ERR_ROCKETMQ_VALIDATION',
  BROKER: 'ERR_ROCKETMQ_BROKER',
  NO_ROUTE: 'ERR_ROCKETMQ_NO_ROUTE',
  NO_NAME_SERVER: 'ERR_ROCKETMQ_NO_NAME_SERVER',
  BROKER_NOT_FOUND: 'ERR_ROCKETMQ_BROKER_NOT_FOUND',
  NO_MESSAGE: 'ERR_ROCKETMQ_NO_MESSAGE',
  NOT_RUNNING: 'ERR_ROCKETMQ_NOT_RUNNING',
  CLIENT: 'ERR_ROCKETMQ_CLIENT',
  OFFSET_FILE: 'ERR_ROCKETMQ_OFFSET_FILE',
  FILTER_COMPILE: 'ERR_ROCKETMQ_FILTER_COMPILE',
  FILTER_EVALUATION: 'ERR_ROCKETMQ_FILTER_EVALUATION',
  STORE_IO: 'ERR_ROCKETMQ_STORE_IO',
  STORE_CORRUPT: 'ERR_ROCKETMQ_STORE_CORRUPT',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface RocketMQErrorOptions extends ErrorOptions {
  /** True when the same call may succeed later (a timeout, a lost connection, a busy broker). */
  retriable?: boolean;
  /** The stable string code; each class passes its own. */
  code?: string | undefined;
}

/** Base of every error rocketmq-ts throws on purpose. */
export class RocketMQError extends Error {
  /** Response code (ResponseCode table) a server answers with for this fault; SYSTEM_ERROR if unsure. */
  readonly responseCode: number;
  /** Whether the same call may succeed if tried again; false for bad input and closed clients. */
  readonly retriable: boolean;
  /** Stable string code (ErrorCode), for `switch` and logs; docs/errors.md has the table. */
  readonly code: string;

  constructor(message: string, responseCode = 1, options?: RocketMQErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.responseCode = responseCode;
    this.retriable = options?.retriable ?? false;
    this.code = options?.code ?? ErrorCode.INTERNAL;
  }
}

/**
 * Bytes that do not form a valid frame, header, body or message: malformed input from a peer or a file.
 * `what` names the structure being decoded (for example `frame`, `json header`, `message`).
 */
export class RemotingCommandError extends RocketMQError {
  readonly what: string;

  constructor(what: string, message: string, options?: ErrorOptions) {
    super(`${what}: ${message}`, 1, { ...options, code: ErrorCode.DECODE });
    this.what = what;
  }
}

/** A value that breaks a rule of the model (bad topic name, oversized body, missing header field...). */
export class ValidationError extends RocketMQError {
  constructor(message: string, responseCode = 1, options?: RocketMQErrorOptions) {
    super(message, responseCode, { ...options, code: ErrorCode.VALIDATION });
  }
}
