/**
 * The pulled batches waiting for poll (upstream's consumeRequestCache), in arrival order. poll waits
 * here for the next batch or its timeout; pull tasks stop adding while it holds more than
 * pullThresholdForAll messages' worth of batches, so it stays bounded.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { RemotingAbortedError } from '../../../remoting/transport/errors.js';
import type { ProcessQueue } from '../process-queue.js';

export interface ConsumeRequest {
  readonly messages: MessageExt[];
  readonly mq: MessageQueue;
  readonly pq: ProcessQueue;
}

interface Waiter {
  resolve(request: ConsumeRequest | undefined): void;
  timer: TimerHandle | undefined;
  /** Removes the abort listener of the wait's signal, if it has one. */
  release: (() => void) | undefined;
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
      settle(waiter);
      waiter.resolve(request);
    } else {
      this.requests.push(request);
    }
  }

  /** Puts a request back in front (an iterator stopped before passing its messages). */
  putFirst(request: ConsumeRequest): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      settle(waiter);
      waiter.resolve(request);
    } else {
      this.requests.unshift(request);
    }
  }

  /**
   * The next request, waiting up to `timeoutMs` (undefined when none came); an aborted `signal` ends
   * the wait with RemotingAbortedError (its `cause` the signal's reason), as every `{ signal }` call.
   */
  take(timeoutMs: number, signal?: AbortSignal): Promise<ConsumeRequest | undefined> {
    if (signal?.aborted) return Promise.reject(new RemotingAbortedError('', signal.reason, 'poll'));
    const next = this.requests.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (timeoutMs <= 0) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, timer: undefined, release: undefined };
      const leave = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        settle(waiter);
      };
      waiter.timer = this.clock.setTimeout(() => {
        leave();
        resolve(undefined);
      }, timeoutMs);
      if (signal !== undefined) {
        const onAbort = () => {
          leave();
          reject(new RemotingAbortedError('', signal.reason, 'poll'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.release = () => signal.removeEventListener('abort', onAbort);
      }
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
      settle(w);
      w.resolve(undefined);
    }
  }
}

/** A wait that ends stops its timer and its abort listener. */
function settle(waiter: Waiter): void {
  waiter.timer?.cancel();
  waiter.release?.();
}
