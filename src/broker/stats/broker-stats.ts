/**
 * BrokerStats (`store/.../stats/BrokerStats.java`): the store's put and get totals as they were at
 * the last two midnights, which GET_BROKER_RUNTIME_INFO and `mqadmin clusterList` turn into
 * "yesterday" and "today" figures. start() records at the next local midnight and every 24 h after
 * (upstream's BrokerController schedule); a store other than DefaultMessageStore reports 0.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { scheduleAtFixedRate } from '../../common/stats/fixed-rate.js';
import { DefaultMessageStore } from '../../store/default-message-store.js';
import type { BrokerMessageStore } from '../message-store.js';

const ONE_DAY = 86_400_000;

/** Upstream `UtilAll.computeNextMorningTimeMillis`: the next local midnight after `now`. */
export function computeNextMorningTimeMillis(now: number): number {
  const d = new Date(now);
  d.setDate(d.getDate() + 1);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

export class BrokerStats {
  msgPutTotalYesterdayMorning = 0;
  msgPutTotalTodayMorning = 0;
  msgGetTotalYesterdayMorning = 0;
  msgGetTotalTodayMorning = 0;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly store: BrokerMessageStore,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  /** Messages the store has put since it started (upstream getPutMessageTimesTotal). */
  get msgPutTotalTodayNow(): number {
    return this.store instanceof DefaultMessageStore ? this.store.stats.putMessageTimesTotal : 0;
  }

  /** Messages pulls have returned since the store started (getMessageTransferedMsgCount). */
  get msgGetTotalTodayNow(): number {
    return this.store instanceof DefaultMessageStore ? this.store.stats.getMessageTransferedMsgCount : 0;
  }

  /** Today's morning figures become yesterday's; the current totals become today's. */
  record(): void {
    this.msgPutTotalYesterdayMorning = this.msgPutTotalTodayMorning;
    this.msgGetTotalYesterdayMorning = this.msgGetTotalTodayMorning;
    this.msgPutTotalTodayMorning = this.msgPutTotalTodayNow;
    this.msgGetTotalTodayMorning = this.msgGetTotalTodayNow;
    this.logger?.info('yesterday put and get message totals', {
      put: this.msgPutTotalTodayMorning - this.msgPutTotalYesterdayMorning,
      get: this.msgGetTotalTodayMorning - this.msgGetTotalYesterdayMorning,
    });
  }

  start(): void {
    if (this.timer !== undefined) return;
    const now = this.clock.now();
    this.timer = scheduleAtFixedRate(
      this.clock,
      () => this.record(),
      computeNextMorningTimeMillis(now) - now,
      ONE_DAY,
    );
  }

  shutdown(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}
