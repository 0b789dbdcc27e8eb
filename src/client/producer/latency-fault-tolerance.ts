/**
 * LatencyFaultTolerance: brokers recently slow or failing, and until when to avoid them (upstream
 * LatencyFaultToleranceImpl). Time comes from a Clock so tests can move past an isolation.
 */
import type { Clock } from '../../common/clock.js';
import { SendQueueIndex } from './topic-publish-info.js';

interface FaultItem {
  readonly name: string;
  currentLatency: number;
  /** When the broker may be used again. */
  startTimestamp: number;
}

export class LatencyFaultTolerance {
  private readonly clock: Clock;
  private readonly faultItemTable = new Map<string, FaultItem>();
  private readonly whichItemWorst = new SendQueueIndex();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  updateFaultItem(name: string, currentLatency: number, notAvailableDuration: number): void {
    const startTimestamp = this.clock.now() + notAvailableDuration;
    const item = this.faultItemTable.get(name);
    if (item === undefined) this.faultItemTable.set(name, { name, currentLatency, startTimestamp });
    else {
      item.currentLatency = currentLatency;
      item.startTimestamp = startTimestamp;
    }
  }

  isAvailable(name: string): boolean {
    const item = this.faultItemTable.get(name);
    return item === undefined || this.clock.now() >= item.startTimestamp;
  }

  remove(name: string): void {
    this.faultItemTable.delete(name);
  }

  /**
   * A broker to try when every one is isolated: sorted available first, then by latency, then by
   * when they come back, one of the better half in turn (or the best when there are fewer than two).
   */
  pickOneAtLeast(): string | undefined {
    const now = this.clock.now();
    const items = [...this.faultItemTable.values()].sort((a, b) => {
      const aa = now >= a.startTimestamp;
      const ba = now >= b.startTimestamp;
      if (aa !== ba) return aa ? -1 : 1;
      return a.currentLatency - b.currentLatency || a.startTimestamp - b.startTimestamp;
    });
    if (items.length === 0) return undefined;
    const half = Math.floor(items.length / 2);
    if (half <= 0) return items[0]?.name;
    return items[this.whichItemWorst.incrementAndGet() % half]?.name;
  }
}
