/**
 * TransactionalMessageCheckService (`broker/.../transaction/TransactionalMessageCheckService.java`):
 * on a master, every transactionCheckInterval, one check pass over the half queues with the
 * current transactionTimeOut and transactionCheckMax. The next pass is timed from the end of the
 * previous one, as upstream's service thread waits between passes. Time is the given clock, so
 * tests drive it instead of sleeping.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { BrokerConfig } from '../broker-config.js';
import type {
  TransactionalMessageCheckListener,
  TransactionalMessageService,
} from './transactional-message-service.js';

export interface TransactionalMessageCheckServiceOptions {
  /** Read at each pass, so UPDATE_BROKER_CONFIG changes apply from the next one. */
  config: Pick<BrokerConfig, 'transactionCheckInterval' | 'transactionTimeOut' | 'transactionCheckMax'>;
  service: TransactionalMessageService;
  listener: TransactionalMessageCheckListener;
  clock: Clock;
  logger: Logger;
}

export class TransactionalMessageCheckService {
  private readonly options: TransactionalMessageCheckServiceOptions;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(options: TransactionalMessageCheckServiceOptions) {
    this.options = options;
  }

  getServiceName(): string {
    return 'TransactionalMessageCheckService';
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.options.logger.info('Start transaction check service thread!');
    this.schedule();
  }

  /** Stops the timer and waits for a pass under way. */
  async shutdown(): Promise<void> {
    const wasRunning = !this.stopped;
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running?.catch(() => undefined);
    if (wasRunning) this.options.logger.info('End transaction check service thread!');
  }

  /** Resolves when no pass is running (tests: after advancing the clock past an interval). */
  async whenIdle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  /** One pass now (upstream onWaitEnd); a pass already under way is joined, not doubled. */
  check(): Promise<void> {
    this.running ??= this.onWaitEnd().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      void this.check()
        .catch((error: unknown) =>
          this.options.logger.error('transaction check pass failed', {
            error: error instanceof Error ? error.message : String(error),
          }),
        )
        .then(() => this.schedule());
    }, this.options.config.transactionCheckInterval);
  }

  private async onWaitEnd(): Promise<void> {
    const { config, clock, logger } = this.options;
    const begin = clock.now();
    logger.info('Begin to check prepare message', { begin });
    await this.options.service.check(
      config.transactionTimeOut,
      config.transactionCheckMax,
      this.options.listener,
    );
    logger.info('End to check prepare message', { consumedMs: clock.now() - begin });
  }
}
