/**
 * The pulled batches waiting for poll (upstream's consumeRequestCache), in arrival order. poll waits
 * here for the next batch or its timeout; pull tasks stop adding while it holds more than
 * pullThresholdForAll messages' worth of batches, so it stays bounded.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { ProcessQueue } from '../process-queue.js';

export interface ConsumeRequest {
  readonly messages: MessageExt[];
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue;
}

interface Waiter {
  resolve(request: ConsumeRequest | undefined): void;
  timer: TimerHandle | undefined;
}

export class ConsumeRequestCache {
  private requests: ConsumeRequest[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  get size(): number {
    return this.requests.length;
  }

  put(request: ConsumeRequest): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter.timer?.cancel();
      waiter.resolve(request);
    } else {
      this.requests.push(request);
    }
  }

  /** Puts a request back in front (an iterator stopped before passing its messages). */
  putFirst(request: ConsumeRequest): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      waiter.timer?.cancel();
      waiter.resolve(request);
    } else {
      this.requests.unshift(request);
    }
  }

  /** The next request, waiting up to `timeoutMs` (undefined when none came). */
  take(timeoutMs: number): Promise<ConsumeRequest | undefined> {
    const next = this.requests.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (timeoutMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = { resolve, timer: undefined };
      waiter.timer = this.clock.setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Drops the requests of `mq` (a seek). */
  removeQueue(mq: MessageQueue): void {
    this.requests = this.requests.filter((r) => !r.mq.equals(mq));
  }

  /** Ends every wait with no request (shutdown). */
  wakeAll(): void {
    for (const w of this.waiters.splice(0)) {
      w.timer?.cancel();
      w.resolve(undefined);
    }
  }
}
