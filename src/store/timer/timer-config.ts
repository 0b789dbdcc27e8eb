/**
 * Timer messages (5.x): the topic the send path parks them in, and the store-side settings with
 * upstream MessageStoreConfig's keys and defaults (apache/rocketmq 5.5.0).
 */

import { parseJavaLong } from '../../common/java-parse.js';
import { MessageConst } from '../../common/message/message-const.js';
import { getProperty } from '../dispatch-request.js';

/** Upstream TimerMessageStore.TIMER_TOPIC: `rmq_sys_` + `wheel_timer`, one queue (0). */
export const TIMER_TOPIC = 'rmq_sys_wheel_timer';

export interface TimerStoreConfig {
  /** Upstream `timerWheelEnable` [true]: off, a timer message is refused (WHEEL_TIMER_NOT_ENABLE). */
  timerWheelEnable: boolean;
  /** Upstream `timerMaxDelaySec` [259200 = 3 days]: a later delivery time is refused. */
  timerMaxDelaySec: number;
  /** Upstream `timerPrecisionMs` [1000]: the slot width; upstream snaps it to 100, 200, 500 or 1000. */
  timerPrecisionMs: number;
  /** Upstream `timerFlushIntervalMs` [1000]: how often the timer checkpoint is written. */
  timerFlushIntervalMs: number;
  /** Upstream `timerCongestNumEachSlot` [Integer.MAX_VALUE]: a slot this full starts refusing sends. */
  timerCongestNumEachSlot: number;
  /** Upstream `timerStopDequeue` [false]: holds every due message (operators' brake). */
  timerStopDequeue: boolean;
}

export const DEFAULT_TIMER_STORE_CONFIG: Readonly<TimerStoreConfig> = Object.freeze({
  timerWheelEnable: true,
  timerMaxDelaySec: 3600 * 24 * 3,
  timerPrecisionMs: 1000,
  timerFlushIntervalMs: 1000,
  timerCongestNumEachSlot: 2_147_483_647,
  timerStopDequeue: false,
});

/** Upstream MessageStoreConfig.setTimerPrecisionMs: the largest of 100, 200, 500, 1000 not above it (100 at least). */
export function snapTimerPrecisionMs(value: number): number {
  const candidates = [100, 200, 500, 1000];
  for (let i = 1; i < candidates.length; i++) {
    if (value < candidates[i]!) return candidates[i - 1]!;
  }
  return 1000;
}

/**
 * The consume-queue tag code of a timer-topic record: its slot time (TIMER_OUT_MS), never before its
 * store time. A missing or malformed TIMER_OUT_MS means "now" (the store time): the record is given
 * out at once rather than held forever. Keeping the time in the consume queue lets recovery rebuild
 * the wheel from the queue alone, without reading the commit log.
 */
export function timerTagsCode(properties: string, storeTimestamp: number): bigint {
  const text = getProperty(properties, MessageConst.PROPERTY_TIMER_OUT_MS);
  const out = text === undefined ? undefined : parseJavaLong(text);
  const store = BigInt(storeTimestamp);
  return out === undefined || out < store ? store : out;
}
