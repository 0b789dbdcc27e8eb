/**
 * A task run at a fixed rate on a Clock (upstream's scheduleAtFixedRate): first after `initialDelay`,
 * then every `period` from the start of the previous run. A run still going when the next falls due
 * delays it instead of overlapping it. Failures are logged and the schedule goes on.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { errorText } from '../errors.js';

export class RepeatingTask {
  private readonly clock: Clock;
  private readonly name: string;
  private readonly period: number;
  private readonly run: () => Promise<void> | void;
  private readonly logger: Logger;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(clock: Clock, name: string, period: number, run: () => Promise<void> | void, logger: Logger) {
    this.clock = clock;
    this.name = name;
    this.period = period;
    this.run = run;
    this.logger = logger;
  }

  start(initialDelay: number): void {
    this.stopped = false;
    this.schedule(initialDelay);
  }

  /** Cancels the next run and waits for a running one to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => this.fire(), delay);
  }

  private fire(): void {
    this.timer = undefined;
    const startedAt = this.clock.now();
    this.running = (async () => {
      try {
        await this.run();
      } catch (error) {
        this.logger.error('scheduled task failed', { task: this.name, error: errorText(error) }, error);
      }
    })().finally(() => {
      this.running = undefined;
      this.schedule(Math.max(0, this.period - (this.clock.now() - startedAt)));
    });
  }
}
