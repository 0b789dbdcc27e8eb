/**
 * Runs one synchronous call under a wall-clock deadline. A named filter runs on the broker's event
 * loop, inside the store's scan of a pull; one that loops would hang every client. Node can only
 * interrupt synchronous JavaScript from a vm script run with `timeout` (a watchdog thread terminates
 * the execution and the script call throws), so the call is made from a tiny pre-compiled script.
 *
 * The price is the watchdog: Node starts one per guarded call, tens of microseconds, against well
 * under one for a direct call. A worker would cost as much per message (two thread hand-offs) and
 * could not run the filters the broker is handed as functions, so the vm it is.
 */
import { type Context, createContext, Script } from 'node:vm';

/** What runOnce() reports when the call ran out of time. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/** The node:vm error code of a script stopped by its timeout. */
const TIMEOUT_CODE = 'ERR_SCRIPT_EXECUTION_TIMEOUT';

export class DeadlineRunner {
  readonly #script = new Script('invoke()', { filename: 'named-filter-deadline' });
  readonly #context: Context;
  #pending: (() => unknown) | undefined;

  constructor() {
    // The script only calls back into this realm: the filter runs with its own globals, as before.
    this.#context = createContext({ invoke: () => this.#pending?.() });
  }

  /**
   * `fn()`, or TIMED_OUT when it ran longer than `timeoutMs` (then stopped where it was). Whatever
   * fn throws is rethrown.
   */
  run<T>(fn: () => T, timeoutMs: number): T | typeof TIMED_OUT {
    this.#pending = fn;
    try {
      return this.#script.runInContext(this.#context, { timeout: timeoutMs }) as T;
    } catch (error) {
      // The watchdog's own timer decides (it may fire a fraction of a millisecond before
      // performance.now() says the time is up), so the code alone tells a stopped call.
      if ((error as { code?: unknown }).code === TIMEOUT_CODE) return TIMED_OUT;
      throw error;
    } finally {
      this.#pending = undefined;
    }
  }
}
