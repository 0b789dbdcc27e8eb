/**
 * Delay levels (upstream `ScheduleMessageService.parseDelayLevel`, `messageDelayLevel`): level n (1-based)
 * delays by the n-th duration of "1s 5s 10s 30s 1m ... 2h". Units s, m, h, d.
 */

import { ValidationError } from '../common/errors.js';

export const DEFAULT_MESSAGE_DELAY_LEVEL = '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export class DelayLevelTable {
  /** Milliseconds of each level, index 0 = level 1. */
  private readonly delays: readonly number[];

  constructor(messageDelayLevel: string = DEFAULT_MESSAGE_DELAY_LEVEL) {
    const delays: number[] = [];
    for (const part of messageDelayLevel.split(' ')) {
      if (part.length === 0) continue;
      const unit = UNIT_MS[part.charAt(part.length - 1)];
      const digits = part.slice(0, -1);
      if (unit === undefined || !/^\d+$/.test(digits)) {
        throw new ValidationError(
          `messageDelayLevel "${messageDelayLevel}": "${part}" is not <number><s|m|h|d>`,
        );
      }
      delays.push(Number(digits) * unit);
    }
    if (delays.length === 0)
      throw new ValidationError(`messageDelayLevel "${messageDelayLevel}" has no level`);
    this.delays = delays;
  }

  get maxDelayLevel(): number {
    return this.delays.length;
  }

  /** Upstream `computeDeliverTimestamp`: store time + the level's delay (+1 s for an unknown level). */
  computeDeliverTimestamp(delayLevel: number, storeTimestamp: number): number {
    const delay = this.delays[delayLevel - 1];
    return storeTimestamp + (delay ?? 1000);
  }
}

/** Upstream `delayLevel2QueueId`. */
export function delayLevel2QueueId(delayLevel: number): number {
  return delayLevel - 1;
}

/** `Integer.parseInt` of a DELAY property value; undefined when Java would throw. */
export function parseDelayLevel(value: string): number | undefined {
  if (!/^[+-]?\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}
