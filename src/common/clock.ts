/**
 * Time as a dependency: components with intervals (store flush and retention, name server liveness,
 * client timers) take a Clock so tests drive time instead of sleeping.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/**
 * The real clock. Its timers do not keep the process alive: servers hold their sockets open and so
 * live anyway, a forgotten store timer must not stop a test process from exiting, and an idle client
 * (its heartbeats and route polls) must not either; what a client waits for holds the process itself.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * The real clock with timers that keep the process alive: a client given it runs until it is shut
 * down, and its shutdown must cancel every timer for the process to exit, so a leaked timer shows
 * instead of hiding behind unref().
 */
export const liveSystemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** A clock tests advance by hand; timers fire in due order during `advance`. */
export class ManualClock implements Clock {
  private current: number;
  private timers: Array<{ at: number; seq: number; fn: () => void; cancelled: boolean }> = [];
  private seq = 0;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Timers still waiting to run. */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, running every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => !t.cancelled && t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }
}
