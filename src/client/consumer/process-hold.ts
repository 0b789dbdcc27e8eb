/**
 * The client's timers do not keep the process alive (an idle client must let a process exit), so
 * what must keep it alive says so: a running push consumer (a service, as a server is), and a poll
 * the application awaits.
 */

/** Long enough to cost nothing; the interval never does anything. */
const HOLD_PERIOD_MS = 3_600_000;

function noop(): void {}

/** One ref'd handle held between hold() and release(); both are idempotent. */
export class ProcessHold {
  private timer: NodeJS.Timeout | undefined;

  hold(): void {
    this.timer ??= setInterval(noop, HOLD_PERIOD_MS);
  }

  release(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** `work`, with the process kept alive until it settles. */
export function holdingProcess<T>(work: Promise<T>): Promise<T> {
  const hold = new ProcessHold();
  hold.hold();
  return work.finally(() => hold.release());
}
