/**
 * Counters of the store (the parts of upstream StoreStatsService the broker's runtime info and
 * admin tools report). Plain numbers, updated on the hot paths without allocation.
 */

export class StoreStats {
  putMessageTimesTotal = 0;
  putMessageSizeTotal = 0;
  putMessageFailedTimes = 0;
  getMessageTimesTotalFound = 0;
  getMessageTimesTotalMiss = 0;
  getMessageTransferedMsgCount = 0;
  getMessageEntireTimeMax = 0;

  /** Upstream's runtime-info names and values, as strings. */
  toRuntimeInfo(): Map<string, string> {
    return new Map([
      ['putMessageTimesTotal', String(this.putMessageTimesTotal)],
      ['putMessageSizeTotal', String(this.putMessageSizeTotal)],
      ['putMessageFailedTimes', String(this.putMessageFailedTimes)],
      ['getMessageTimesTotalFound', String(this.getMessageTimesTotalFound)],
      ['getMessageTimesTotalMiss', String(this.getMessageTimesTotalMiss)],
      ['getMessageTransferedMsgCount', String(this.getMessageTransferedMsgCount)],
      ['getMessageEntireTimeMax', String(this.getMessageEntireTimeMax)],
    ]);
  }
}
