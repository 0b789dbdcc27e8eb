/**
 * Error classes shared by every layer. Each carries the RocketMQ response code that a peer would
 * see for the same fault, so a processor can turn any thrown error into a response without a table,
 * and says whether trying again can help, so a client knows whether to retry without a table either.
 */

export interface RocketMQErrorOptions extends ErrorOptions {
  /** True when the same call may succeed later (a timeout, a lost connection, a busy broker). */
  retriable?: boolean;
}

/** Base of every error rocketmq-ts throws on purpose. */
export class RocketMQError extends Error {
  /** Response code (ResponseCode table) a server answers with for this fault; SYSTEM_ERROR if unsure. */
  readonly responseCode: number;
  /** Whether the same call may succeed if tried again; false for bad input and closed clients. */
  readonly retriable: boolean;

  constructor(message: string, responseCode = 1, options?: RocketMQErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.responseCode = responseCode;
    this.retriable = options?.retriable ?? false;
  }
}

/**
 * Bytes that do not form a valid frame, header, body or message: malformed input from a peer or a file.
 * `what` names the structure being decoded (for example `frame`, `json header`, `message`).
 */
export class RemotingCommandError extends RocketMQError {
  readonly what: string;

  constructor(what: string, message: string, options?: ErrorOptions) {
    super(`${what}: ${message}`, 1, options);
    this.what = what;
  }
}

/** A value that breaks a rule of the model (bad topic name, oversized body, missing header field...). */
export class ValidationError extends RocketMQError {}
