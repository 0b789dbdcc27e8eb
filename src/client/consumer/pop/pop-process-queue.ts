/**
 * PopProcessQueue: the state of a queue this member pops (upstream's): how many popped messages
 * still wait for their ack or invisible-time change (pops pause above popThresholdForQueue), when
 * it was last popped (a queue not popped for pullMaxIdleTime is rebuilt by rebalancing) and whether
 * rebalancing dropped it. Unlike a pulled queue it caches nothing: progress is the broker's.
 */
import type { Clock } from '../../../common/clock.js';

export class PopProcessQueue {
  dropped = false;
  lastPopTimestamp: number;
  private waitAckCount = 0;

  constructor(
    private readonly clock: Clock,
    private readonly pullMaxIdleTime: number,
  ) {
    this.lastPopTimestamp = clock.now();
  }

  /** Popped messages whose ack or invisible-time change has not been sent yet. */
  get waitAckMsgCount(): number {
    return this.waitAckCount;
  }

  incFoundMsg(count: number): void {
    this.waitAckCount += count;
  }

  /** `decFoundMsg(-n)` upstream: n messages given up without consuming them. */
  decFoundMsg(count: number): void {
    this.waitAckCount = Math.max(0, this.waitAckCount - count);
  }

  /** One message acked or handed back. */
  ack(): void {
    this.decFoundMsg(1);
  }

  isPullExpired(): boolean {
    return this.clock.now() - this.lastPopTimestamp > this.pullMaxIdleTime;
  }
}
