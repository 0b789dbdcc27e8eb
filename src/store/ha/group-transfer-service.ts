/**
 * SYNC_MASTER's wait for a slave (upstream HAService.GroupTransferService): an append is answered
 * once a slave has acknowledged an offset at or past its end, or FLUSH_SLAVE_TIMEOUT after
 * slaveTimeout. Upstream's thread re-checks every request on each acknowledgement and at least once
 * a second; here the waiters sit in append order and each acknowledgement releases the ones it
 * covers, and one timer serves the oldest deadline.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import { PutMessageStatus } from '../put-message-result.js';

interface Waiter {
  nextOffset: number;
  deadline: number;
  resolve: (status: PutMessageStatus) => void;
}

export class GroupTransferService {
  /** The highest offset any slave has acknowledged (upstream push2SlaveMaxOffset). */
  push2SlaveMaxOffset = 0;
  private waiters: Waiter[] = [];
  private head = 0;
  private timer: TimerHandle | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  /** Resolves with PUT_OK once a slave has `nextOffset`, else FLUSH_SLAVE_TIMEOUT after `timeout` ms. */
  waitFor(nextOffset: number, timeout: number): Promise<PutMessageStatus> {
    if (this.push2SlaveMaxOffset >= nextOffset) return Promise.resolve(PutMessageStatus.PUT_OK);
    return new Promise((resolve) => {
      const deadline = this.clock.now() + timeout;
      this.waiters.push({ nextOffset, deadline, resolve });
      if (deadline < this.timerAt) this.arm(deadline);
    });
  }

  /** Upstream notifyTransferSome: a slave acknowledged `offset`. */
  notifyTransferSome(offset: number): void {
    if (offset <= this.push2SlaveMaxOffset) return;
    this.push2SlaveMaxOffset = offset;
    const waiters = this.waiters;
    // Appends end in increasing order, so the covered waiters are at the front; one that is not
    // (answered out of order) waits for a later acknowledgement or its deadline.
    while (this.head < waiters.length && (waiters[this.head] as Waiter).nextOffset <= offset) {
      (waiters[this.head] as Waiter).resolve(PutMessageStatus.PUT_OK);
      this.head++;
    }
    this.compact();
  }

  get waiting(): number {
    return this.waiters.length - this.head;
  }

  /** Answers every waiter with FLUSH_SLAVE_TIMEOUT (shutdown). */
  shutdown(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const waiters = this.waiters.slice(this.head);
    this.waiters = [];
    this.head = 0;
    for (const w of waiters) w.resolve(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.clock.setTimeout(this.expire, Math.max(0, at - this.clock.now()));
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    const waiters = this.waiters;
    // Every waiter has the same timeout, so deadlines grow along the queue.
    while (this.head < waiters.length) {
      const w = waiters[this.head] as Waiter;
      if (w.nextOffset <= this.push2SlaveMaxOffset) w.resolve(PutMessageStatus.PUT_OK);
      else if (w.deadline <= now) w.resolve(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
      else break;
      this.head++;
    }
    this.compact();
    const next = waiters[this.head];
    if (next !== undefined) this.arm(next.deadline);
  };

  private compact(): void {
    if (this.head === this.waiters.length) {
      this.waiters = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.head);
      this.head = 0;
    }
  }
}
