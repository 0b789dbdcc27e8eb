/**
 * Error classes shared by every layer. Each carries the RocketMQ response code that a peer would
 * see for the same fault, so a processor can turn any thrown error into a response without a table.
 */

/** Base of every error rocketmq-ts throws on purpose. */
export class RocketMQError extends Error {
  /** Response code (ResponseCode table) a server answers with for this fault; SYSTEM_ERROR if unsure. */
  readonly responseCode: number;

  constructor(message: string, responseCode = 1, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.responseCode = responseCode;
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
