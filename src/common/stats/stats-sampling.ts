/**
 * Upstream StatsItemSet.init's schedule, on a Clock: every set sampled every 10 s, 10 min and hour,
 * each first right away. Upstream starts it when a set is built and ends it with the owner's
 * executor; here the owner starts it and cancels the handle on shutdown, so no timer outlives it.
 * The minute/hour/day log lines upstream also prints on this schedule are left out: logs stay quiet.
 */
import type { Clock, TimerHandle } from '../clock.js';
import { scheduleAtFixedRate } from './fixed-rate.js';
import { StatsSamplingPeriod } from './stats-item.js';
import type { StatsItemSet } from './stats-item-set.js';

/**
 * Starts sampling the sets `sets()` yields at each run (read anew each time, so sets added later are
 * sampled too). Cancel the handle to stop every timer.
 */
export function startStatsSampling(clock: Clock, sets: () => Iterable<StatsItemSet>): TimerHandle {
  const every = (period: number, sample: (set: StatsItemSet, now: number) => void): TimerHandle =>
    scheduleAtFixedRate(
      clock,
      () => {
        const now = clock.now();
        for (const set of sets()) sample(set, now);
      },
      0,
      period,
    );
  const timers = [
    every(StatsSamplingPeriod.SECONDS, (set, now) => set.samplingInSeconds(now)),
    every(StatsSamplingPeriod.MINUTES, (set, now) => set.samplingInMinutes(now)),
    every(StatsSamplingPeriod.HOUR, (set, now) => set.samplingInHour(now)),
  ];
  return {
    cancel: () => {
      for (const t of timers) t.cancel();
    },
  };
}
