/**
 * RebalanceService: every rebalanceWaitInterval (upstream `rocketmq.client.rebalance.waitInterval`,
 * 20 s), and at once when woken (a consumer started, NOTIFY_CONSUMER_IDS_CHANGED), every consumer
 * of the instance rebalances. Runs never overlap; a wakeup during a run makes one more run after it.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { errorText } from '../errors.js';

export class RebalanceService {
  private readonly clock: Clock;
  private readonly interval: number;
  private readonly task: () => Promise<void>;
  private readonly logger: Logger;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(clock: Clock, interval: number, task: () => Promise<void>, logger: Logger) {
    this.clock = clock;
    this.interval = interval;
    this.task = task;
    this.logger = logger;
  }

  start(): void {
    this.stopped = false;
    this.schedule(this.interval);
  }

  /** Runs the task now (or right after the running one). */
  wakeup(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  private schedule(delay: number): void {
    this.timer?.cancel();
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => this.run(), delay);
  }

  private run(): void {
    this.timer = undefined;
    this.again = false;
    this.running = this.task()
      .catch((error: unknown) =>
        this.logger.error('rebalance service failed', { error: errorText(error) }, error),
      )
      .finally(() => {
        this.running = undefined;
        this.schedule(this.again ? 0 : this.interval);
      });
  }
}
