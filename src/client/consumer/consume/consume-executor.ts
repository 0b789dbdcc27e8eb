/**
 * The consume pool (upstream's consumeExecutor thread pool): at most `concurrency` consume requests
 * run at once, the others wait in order. Node has no threads; a request is an async function and
 * "concurrency" is how many listener calls are in flight. What waits here is bounded by the pull
 * thresholds (a queue stops being pulled while its cache is full), not by this queue.
 *
 * Unlike a blocked Java thread, a listener call that has run for `stuckAfterMs` (consumeTimeout)
 * gives its slot up when a task needs one, so calls that never settle cannot stop every queue.
 */
import type { Logger } from '../../../common/logger.js';
import { errorText } from '../../errors.js';

export type ConsumeTask = () => Promise<void>;

interface Running {
  readonly startedAt: number;
  released: boolean;
}

export class ConsumeExecutor {
  private concurrency: number;
  private running = 0;
  /** Insertion order is start order: the first entry is the oldest call still holding a slot. */
  private readonly inFlight = new Set<Running>();
  private readonly now: () => number;
  private readonly stuckAfterMs: number;
  private queue: ConsumeTask[] = [];
  private head = 0;
  private stopped = false;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly logger: Logger;

  /** `stuckAfterMs`: consumeTimeout in ms [never]; `now`: the consumer's clock. */
  constructor(
    concurrency: number,
    logger: Logger,
    {
      now = Date.now,
      stuckAfterMs = Number.POSITIVE_INFINITY,
    }: { now?: () => number; stuckAfterMs?: number } = {},
  ) {
    this.concurrency = concurrency;
    this.logger = logger;
    this.now = now;
    this.stuckAfterMs = stuckAfterMs;
  }

  get corePoolSize(): number {
    return this.concurrency;
  }

  get activeCount(): number {
    return this.running;
  }

  get queueSize(): number {
    return this.queue.length - this.head;
  }

  get isShutdown(): boolean {
    return this.stopped;
  }

  /** Runs `task` when a slot is free; dropped (false) once the executor is shut down. */
  submit(task: ConsumeTask): boolean {
    if (this.stopped) return false;
    if (this.running >= this.concurrency) this.releaseStuck();
    if (this.running < this.concurrency) this.run(task);
    else this.queue.push(task);
    return true;
  }

  /** upstream updateCorePoolSize: takes effect as slots free up (or at once when raised). */
  setConcurrency(concurrency: number): void {
    this.concurrency = concurrency;
    this.drain();
  }

  /** Stops taking tasks, drops the waiting ones, and resolves once the running ones ended. */
  shutdown(): Promise<number> {
    this.stopped = true;
    const dropped = this.queueSize;
    this.queue = [];
    this.head = 0;
    if (this.running === 0) return Promise.resolve(dropped);
    return new Promise((resolve) => this.idleWaiters.push(() => resolve(dropped)));
  }

  /**
   * Frees the slots of calls running for stuckAfterMs or more (they go on, uncounted) and starts what
   * waits in them. Done on submit when the pool is full, and by the services' periodic tasks for
   * tasks that were already waiting.
   */
  releaseStuck(): void {
    if (this.stopped) return;
    const cutoff = this.now() - this.stuckAfterMs;
    let freed = false;
    for (const r of this.inFlight) {
      if (r.startedAt > cutoff) break;
      r.released = true;
      this.inFlight.delete(r);
      this.running--;
      freed = true;
      this.logger.warn('a listener call outlived consumeTimeout: its slot is given to the next', {
        runningMs: cutoff + this.stuckAfterMs - r.startedAt,
      });
    }
    if (freed) this.drain();
  }

  private run(task: ConsumeTask): void {
    this.running++;
    const slot: Running = { startedAt: this.now(), released: false };
    this.inFlight.add(slot);
    // A task that throws before returning its promise must free its slot like one that rejects.
    let pending: Promise<void>;
    try {
      pending = task();
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending
      .catch((error: unknown) => this.logger.error('consume task failed', { error: errorText(error) }, error))
      .finally(() => {
        if (slot.released) return;
        this.inFlight.delete(slot);
        this.running--;
        this.drain();
        if (this.running === 0 && this.stopped) for (const w of this.idleWaiters.splice(0)) w();
      });
  }

  private drain(): void {
    while (this.running < this.concurrency && this.head < this.queue.length) {
      const task = this.queue[this.head] as ConsumeTask;
      this.queue[this.head] = undefined as unknown as ConsumeTask;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.run(task);
    }
  }
}
