/**
 * Abort signals per call without `AbortSignal.any`: that one keeps every composite signal reachable
 * as long as one input lives (a client's shutdown signal lives as long as the client, so a busy
 * producer grew without bound), and it needs Node 20.3. Here each call gets a controller of its own;
 * the caller's signal is forwarded by a listener removed when the call ends, and shutdown reaches
 * the calls through a set instead of one listener per call on a long-lived signal.
 */

/**
 * The calls linked to each caller signal. A signal gets one listener however many calls share it
 * (an application-wide signal over a thousand sends in flight must not trip Node's listener warning),
 * and loses it when its last call settles.
 */
const linked = new WeakMap<AbortSignal, Set<AbortController>>();

function onLinkedAbort(event: Event): void {
  const from = event.target as AbortSignal;
  const controllers = linked.get(from);
  linked.delete(from);
  for (const controller of controllers ?? []) controller.abort(from.reason);
}

/** Aborts `to` when `from` aborts (with its reason); returns the function that removes the link. */
export function forwardAbort(from: AbortSignal | undefined, to: AbortController): () => void {
  if (from === undefined) return noop;
  if (from.aborted) {
    to.abort(from.reason);
    return noop;
  }
  let controllers = linked.get(from);
  if (controllers === undefined) {
    controllers = new Set();
    linked.set(from, controllers);
    from.addEventListener('abort', onLinkedAbort, { once: true });
  }
  controllers.add(to);
  return () => {
    const current = linked.get(from);
    if (current === undefined || !current.delete(to) || current.size > 0) return;
    linked.delete(from);
    from.removeEventListener('abort', onLinkedAbort);
  };
}

function noop(): void {}

/** One call's signal and the clean-up to run when the call settles. */
export interface CallSignal {
  readonly signal: AbortSignal;
  release(): void;
}

/** The calls of one client still running, so shutdown can abort them all. */
export class CallAborts {
  private readonly running = new Set<AbortController>();
  private closed = false;
  private reason: unknown;

  /** True once abortAll ran. */
  get aborted(): boolean {
    return this.closed;
  }

  /** A signal that fires on `caller`'s abort or on abortAll; `release()` when the call settles. */
  begin(caller?: AbortSignal): CallSignal {
    const controller = new AbortController();
    if (this.closed) controller.abort(this.reason);
    else this.running.add(controller);
    const unlink = forwardAbort(caller, controller);
    return {
      signal: controller.signal,
      release: () => {
        this.running.delete(controller);
        unlink();
      },
    };
  }

  /** Aborts every running call with `reason`, and every call begun later at once. */
  abortAll(reason: unknown): void {
    this.closed = true;
    this.reason = reason;
    for (const controller of this.running) controller.abort(reason);
    this.running.clear();
  }

  /** How many calls run now (tests hold it against leaks). */
  get size(): number {
    return this.running.size;
  }
}
