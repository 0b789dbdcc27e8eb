/**
 * The transactional producer's check executor: upstream runs CHECK_TRANSACTION_STATE answers on a
 * ThreadPoolExecutor of checkThreadPoolMinSize core threads, at most checkThreadPoolMaxSize threads
 * and a queue of checkRequestHoldMax. Node has no threads, so a "thread" here is a slot for one check
 * in flight (listeners are mostly async), with the same admission rules:
 * - fewer checks running than the minimum: the check starts at once;
 * - else it waits in the queue while the queue has room;
 * - else, below the maximum, it starts at once;
 * - else it is rejected (upstream's RejectedExecutionException), and the caller drops it.
 * A slot that finishes takes the next queued check. Upstream keeps idle extra threads alive for a
 * minute; a slot needs nothing to wait, so none lingers and no timer is ever set.
 */
import { ValidationError } from '../../common/errors.js';

export type CheckTask = () => Promise<void>;

export interface CheckExecutorLimits {
  /** Checks that start at once, before any waits in the queue (upstream core pool size). */
  readonly checkThreadPoolMinSize: number;
  /** Checks running at most, once the queue is full (upstream maximum pool size). */
  readonly checkThreadPoolMaxSize: number;
  /** Checks waiting at most (upstream's queue capacity). */
  readonly checkRequestHoldMax: number;
}

export const DEFAULT_CHECK_EXECUTOR_LIMITS: CheckExecutorLimits = Object.freeze({
  checkThreadPoolMinSize: 1,
  checkThreadPoolMaxSize: 1,
  checkRequestHoldMax: 2000,
});

function integer(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ValidationError(`${name} must be an integer >= ${min}, got ${String(value)}`, -1);
  }
  return value;
}

/** ThreadPoolExecutor's own checks: min >= 0, max >= 1 and >= min, a queue of at least one. */
export function resolveCheckExecutorLimits(
  given: {
    readonly [K in keyof CheckExecutorLimits]?: number | undefined;
  },
): CheckExecutorLimits {
  const d = DEFAULT_CHECK_EXECUTOR_LIMITS;
  const min = integer('checkThreadPoolMinSize', given.checkThreadPoolMinSize ?? d.checkThreadPoolMinSize, 0);
  const max = integer('checkThreadPoolMaxSize', given.checkThreadPoolMaxSize ?? d.checkThreadPoolMaxSize, 1);
  if (max < min) {
    throw new ValidationError(
      `checkThreadPoolMaxSize (${max}) must not be less than checkThreadPoolMinSize (${min})`,
      -1,
    );
  }
  const hold = integer('checkRequestHoldMax', given.checkRequestHoldMax ?? d.checkRequestHoldMax, 1);
  return { checkThreadPoolMinSize: min, checkThreadPoolMaxSize: max, checkRequestHoldMax: hold };
}

/** What became of a submitted check. */
export type Admission = 'started' | 'queued' | 'rejected';

export class CheckRequestExecutor {
  private readonly limits: CheckExecutorLimits;
  private readonly onError: (error: unknown) => void;
  private readonly queue: CheckTask[] = [];
  private readonly running = new Set<Promise<void>>();
  private accepting = true;

  /** `onError` gets what a task throws (tasks are expected to handle their own failures). */
  constructor(limits: CheckExecutorLimits, onError: (error: unknown) => void) {
    this.limits = limits;
    this.onError = onError;
  }

  get activeCount(): number {
    return this.running.size;
  }

  get queueSize(): number {
    return this.queue.length;
  }

  get isShutdown(): boolean {
    return !this.accepting;
  }

  submit(task: CheckTask): Admission {
    if (!this.accepting) return 'rejected';
    const { checkThreadPoolMinSize, checkThreadPoolMaxSize, checkRequestHoldMax } = this.limits;
    if (this.running.size < checkThreadPoolMinSize) {
      this.start(task);
      return 'started';
    }
    if (this.queue.length < checkRequestHoldMax) {
      // With no core slot (min 0) and nothing running, a queued check would wait forever; upstream
      // adds a worker then, which takes this check (the queue was empty, or a slot would be busy).
      if (this.running.size === 0) {
        this.start(task);
        return 'started';
      }
      this.queue.push(task);
      return 'queued';
    }
    if (this.running.size < checkThreadPoolMaxSize) {
      this.start(task);
      return 'started';
    }
    return 'rejected';
  }

  /**
   * Takes no more checks and drops the queued ones; resolves, with the number dropped, once the
   * checks already running have finished.
   */
  async shutdown(): Promise<number> {
    this.accepting = false;
    const dropped = this.queue.length;
    this.queue.length = 0;
    while (this.running.size > 0) await Promise.all(this.running);
    return dropped;
  }

  private start(task: CheckTask): void {
    const run: Promise<void> = Promise.resolve()
      .then(task)
      .catch((error: unknown) => {
        try {
          this.onError(error);
        } catch {
          // A failing error handler must not stop the slot from taking the next check.
        }
      })
      .finally(() => {
        this.running.delete(run);
        this.startNext();
      });
    this.running.add(run);
  }

  private startNext(): void {
    const next = this.queue.shift();
    if (next !== undefined) this.start(next);
  }
}
