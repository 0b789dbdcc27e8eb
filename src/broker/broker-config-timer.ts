/**
 * The timer-message keys of broker.conf (upstream MessageStoreConfig, 5.5.0): their defaults, how
 * they parse and what they must be. The store side reads them as TimerStoreConfig.
 */
import { DEFAULT_TIMER_STORE_CONFIG, type TimerStoreConfig } from '../store/timer/timer-config.js';
import { BOOL, type ConfigKeySpec, INT, ownedBy } from './broker-config-keys.js';

export type BrokerTimerConfig = TimerStoreConfig;

const ms = ownedBy('MessageStoreConfig');

export const TIMER_CONFIG_KEYS: { readonly [K in keyof BrokerTimerConfig]: ConfigKeySpec } = {
  timerWheelEnable: ms(BOOL),
  timerMaxDelaySec: ms(INT),
  timerPrecisionMs: ms(INT),
  timerFlushIntervalMs: ms(INT),
  timerCongestNumEachSlot: ms(INT),
  timerStopDequeue: ms(BOOL),
};

export const DEFAULT_TIMER_CONFIG: Readonly<BrokerTimerConfig> = DEFAULT_TIMER_STORE_CONFIG;

export function checkTimerConfig(c: BrokerTimerConfig, errors: string[]): void {
  for (const [name, v] of [
    ['timerMaxDelaySec', c.timerMaxDelaySec],
    ['timerPrecisionMs', c.timerPrecisionMs],
    ['timerFlushIntervalMs', c.timerFlushIntervalMs],
    ['timerCongestNumEachSlot', c.timerCongestNumEachSlot],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0) errors.push(`${name} must be > 0, got ${v}`);
  }
}
