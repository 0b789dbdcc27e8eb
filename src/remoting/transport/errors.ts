/**
 * Typed failures of the transport. Each names the peer address so a caller juggling many brokers
 * can tell which one failed without parsing the message. A timeout, a lost or refused connection and
 * a full pending table may clear up, so those are retriable; an abort is the caller's own decision.
 */
import { ErrorCode, RocketMQError } from '../../common/errors.js';

/** No response arrived within the request's timeout. */
export class RemotingTimeoutError extends RocketMQError {
  readonly address: string;
  readonly timeoutMs: number;

  constructor(address: string, timeoutMs: number) {
    super(`request to ${address} timed out after ${timeoutMs} ms`, 1, {
      retriable: true,
      code: ErrorCode.TIMEOUT,
    });
    this.address = address;
    this.timeoutMs = timeoutMs;
  }
}

/** The connection closed (by either side, or because of an error) before the response arrived. */
export class RemotingConnectionClosedError extends RocketMQError {
  readonly address: string;
  readonly reason: string;

  constructor(address: string, reason: string) {
    super(`connection to ${address} closed: ${reason}`, 1, {
      retriable: true,
      code: ErrorCode.CONNECTION_CLOSED,
    });
    this.address = address;
    this.reason = reason;
  }
}

/** A connection could not be opened (refused, unreachable, timed out, bad address, client closed). */
export class RemotingConnectError extends RocketMQError {
  readonly address: string;

  constructor(address: string, detail: string, options?: ErrorOptions) {
    super(`connect to ${address} failed: ${detail}`, 1, {
      ...options,
      retriable: true,
      code: ErrorCode.CONNECT,
    });
    this.address = address;
  }
}

/**
 * The caller's AbortSignal fired; `cause` holds the signal's reason. Every call that takes a
 * `{ signal }` rejects with this class when the signal fires, whether a request was on the wire or
 * not (`address` is then empty).
 */
export class RemotingAbortedError extends RocketMQError {
  readonly address: string;

  constructor(address: string, reason: unknown, what = address === '' ? 'call' : `request to ${address}`) {
    super(`${what} aborted`, 1, { cause: reason, code: ErrorCode.ABORTED });
    this.address = address;
  }
}

/** Too many requests are already waiting for a response on this connection. */
export class RemotingTooMuchRequestError extends RocketMQError {
  readonly address: string;
  readonly limit: number;

  constructor(address: string, limit: number) {
    super(`${limit} requests to ${address} are already waiting for a response`, 1, {
      retriable: true,
      code: ErrorCode.TOO_MANY_REQUESTS,
    });
    this.address = address;
    this.limit = limit;
  }
}
