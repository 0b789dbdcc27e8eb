/**
 * Requests waiting for their response, keyed by the exact int32 opaque. One table per connection, so
 * a closing connection fails exactly its own requests, at once.
 */
import type { RemotingCommand } from '../protocol/command.js';
import { RemotingAbortedError, RemotingTimeoutError } from './errors.js';

/** Opaque numbers: an int32 counter that wraps to negative, as Java's AtomicInteger does. */
export class OpaqueSequence {
  private last: number;

  constructor(start = 0) {
    this.last = start | 0;
  }

  next(): number {
    this.last = (this.last + 1) | 0;
    return this.last;
  }
}

/** Shared by every connection of the process, like upstream's static request id. */
export const processOpaqueSequence = new OpaqueSequence();

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Pending {
  resolve: (response: RemotingCommand) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

function onPendingTimeout(table: PendingRequests, opaque: number, timeoutMs: number): void {
  table.expire(opaque, timeoutMs);
}

export class PendingRequests {
  private readonly entries = new Map<number, Pending>();
  private readonly address: string;
  private readonly onTimeout: ((opaque: number) => void) | undefined;

  constructor(address: string, onTimeout?: (opaque: number) => void) {
    this.address = address;
    this.onTimeout = onTimeout;
  }

  get size(): number {
    return this.entries.size;
  }

  has(opaque: number): boolean {
    return this.entries.has(opaque);
  }

  /** A fresh opaque not in use here; skips the (after 2^32 requests) still-waiting ones. */
  allocateOpaque(sequence: OpaqueSequence = processOpaqueSequence): number {
    let opaque = sequence.next();
    while (this.entries.has(opaque)) opaque = sequence.next();
    return opaque;
  }

  /** Waits for the response carrying `opaque`; the caller sends the request after this returns. */
  add(opaque: number, timeoutMs: number, signal?: AbortSignal): Promise<RemotingCommand> {
    return new Promise<RemotingCommand>((resolve, reject) => {
      // setTimeout treats delays beyond int32 as 1 ms; keep long timeouts long.
      const delay = Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS);
      const timer = setTimeout(onPendingTimeout, delay, this, opaque, timeoutMs);
      let onAbort: (() => void) | undefined;
      if (signal !== undefined) {
        onAbort = () => this.fail(opaque, new RemotingAbortedError(this.address, signal.reason));
        signal.addEventListener('abort', onAbort, { once: true });
      }
      this.entries.set(opaque, { resolve, reject, timer, signal, onAbort });
    });
  }

  /** Resolves the request the response answers; false when no request waits for that opaque. */
  complete(response: RemotingCommand): boolean {
    const entry = this.take(response.opaque);
    if (entry === undefined) return false;
    entry.resolve(response);
    return true;
  }

  fail(opaque: number, error: unknown): boolean {
    const entry = this.take(opaque);
    if (entry === undefined) return false;
    entry.reject(error);
    return true;
  }

  /** Fails every waiting request with an error built for it. */
  failAll(makeError: () => Error): void {
    if (this.entries.size === 0) return;
    const all = [...this.entries.keys()];
    for (const opaque of all) this.fail(opaque, makeError());
  }

  /** Timer callback; public only so the module-level timer function can reach it without a closure. */
  expire(opaque: number, timeoutMs: number): void {
    if (this.fail(opaque, new RemotingTimeoutError(this.address, timeoutMs))) this.onTimeout?.(opaque);
  }

  private take(opaque: number): Pending | undefined {
    const entry = this.entries.get(opaque);
    if (entry === undefined) return undefined;
    this.entries.delete(opaque);
    clearTimeout(entry.timer);
    if (entry.onAbort !== undefined) entry.signal?.removeEventListener('abort', entry.onAbort);
    return entry;
  }
}
