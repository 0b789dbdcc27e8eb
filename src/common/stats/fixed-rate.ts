/**
 * Upstream's scheduleAtFixedRate on a Clock: the task runs at `initialDelay`, then every `period`
 * after that first due time (a late run does not shift the later ones). Runs missed while the
 * process stalled are skipped rather than replayed back to back.
 */
import type { Clock, TimerHandle } from '../clock.js';

export function scheduleAtFixedRate(
  clock: Clock,
  task: () => void,
  initialDelay: number,
  period: number,
): TimerHandle {
  let due = clock.now() + Math.max(0, initialDelay);
  let handle: TimerHandle | undefined;
  let cancelled = false;
  const run = (): void => {
    if (cancelled) return;
    const now = clock.now();
    due += period;
    while (due <= now) due += period;
    handle = clock.setTimeout(run, due - now);
    task();
  };
  handle = clock.setTimeout(run, due - clock.now());
  return {
    cancel: () => {
      cancelled = true;
      handle?.cancel();
    },
  };
}
