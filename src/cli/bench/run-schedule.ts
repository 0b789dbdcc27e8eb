/**
 * The timeline every bench run shares: an optional warm-up, then the measured window (ended by
 * --duration, or earlier by the caller or a signal), interval lines every --report-interval and, on
 * a terminal, the live line every second.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../common/logger.js';
import type { BenchTerminal } from './terminal.js';

/** The live line is redrawn once a second, the period of upstream's snapshot timer. */
export const PROGRESS_INTERVAL_MS = 1000;

/** What a runner gets from the command. */
export interface BenchContext {
  readonly terminal: BenchTerminal;
  /** Aborted by SIGINT or SIGTERM (or a test): stop, print the summary, exit 0. */
  readonly signal: AbortSignal;
  /** One-line notes on stderr (a failure kind seen for the first time). */
  readonly warn: (text: string) => void;
  /** The client's logger (quiet unless RMQ_LOG_LEVEL says otherwise). */
  readonly clientLogger: Logger;
}

export interface ScheduleOptions {
  readonly signal: AbortSignal;
  readonly warmupS: number;
  readonly durationS: number;
  readonly reportIntervalS: number;
  readonly showProgress: boolean;
  /** The warm-up is over (at once when there is none); `at` is a performance.now() time. */
  readonly onMeasureStart: (at: number) => void;
  readonly onReport: () => void;
  readonly onProgress: () => void;
}

export interface RunSchedule {
  /** Aborted when the run must stop: the duration is over, stop() was called, or a signal came. */
  readonly stopped: AbortSignal;
  stop(): void;
  /** Cancels every timer; the run is over. */
  dispose(): void;
}

export function scheduleRun(options: ScheduleOptions): RunSchedule {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  if (options.signal.aborted) stop();
  let durationTimer: NodeJS.Timeout | undefined;
  // Node's timers run on the event loop's millisecond-truncated clock and can fire up to a millisecond
  // before performance.now() reaches their time: a window cut by one would measure 2999.7 ms of 3 s.
  const stopAt = (deadline: number): void => {
    const left = deadline - performance.now();
    if (left > 0) durationTimer = setTimeout(stopAt, Math.ceil(left), deadline);
    else stop();
  };
  const startMeasuring = (): void => {
    const at = performance.now();
    options.onMeasureStart(at);
    if (options.durationS > 0) stopAt(at + options.durationS * 1000);
  };
  let warmupTimer: NodeJS.Timeout | undefined;
  if (options.warmupS > 0) warmupTimer = setTimeout(startMeasuring, options.warmupS * 1000);
  else startMeasuring();
  const reportTimer = setInterval(options.onReport, options.reportIntervalS * 1000);
  const progressTimer = options.showProgress
    ? setInterval(options.onProgress, PROGRESS_INTERVAL_MS)
    : undefined;
  return {
    stopped: controller.signal,
    stop,
    dispose() {
      clearTimeout(warmupTimer);
      clearTimeout(durationTimer);
      clearInterval(reportTimer);
      clearInterval(progressTimer);
      options.signal.removeEventListener('abort', stop);
    },
  };
}

/** Resolves after `ms`, or at once when `signal` aborts (a backoff must not delay a stop). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
