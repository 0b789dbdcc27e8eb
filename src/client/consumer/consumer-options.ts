/**
 * What every consumer's options share (the push, pull and lite pull consumers): the checks of
 * upstream's checkConfig and the value parsers, so a bad value fails at creation naming the option.
 */
import { MixAll } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { checkGroupArg } from '../../common/validators.js';
import type { AllocateMessageQueueStrategy } from './rebalance/allocate/allocate-message-queue-strategy.js';

export function integer(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`${name} must be an integer in [${min}, ${max}], got ${String(value)}`, -1);
  }
  return value;
}

export function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new ValidationError(`${name} must be true or false, got ${typeof value}`, -1);
  return value;
}

export function oneOf<T extends string>(
  name: string,
  value: unknown,
  values: { readonly [k: string]: T },
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && Object.hasOwn(values, value)) return values[value] as T;
  throw new ValidationError(
    `${name} must be one of ${Object.keys(values).join(', ')}, got ${String(value)}`,
    -1,
  );
}

/** Upstream's `yyyyMMddHHmmss` (UtilAll.YYYYMMDDHHMMSS) in local time, a Date, or epoch ms. */
export function parseConsumeTimestamp(value: string | Date | number): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ValidationError('consumeTimestamp is an invalid Date', -1);
    return value.getTime();
  }
  if (typeof value === 'number') return integer('consumeTimestamp', value, 0);
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (m === null) {
    throw new ValidationError(
      `consumeTimestamp must be yyyyMMddHHmmss, a Date or ms, got ${JSON.stringify(value)}`,
      -1,
    );
  }
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (date.getMonth() !== mo - 1 || date.getDate() !== d || h > 23 || mi > 59 || s > 59) {
    throw new ValidationError(`consumeTimestamp ${value} is not a valid date`, -1);
  }
  return date.getTime();
}

/** Upstream checkConfig's group rules: a valid group name, not DEFAULT_CONSUMER. */
export function checkConsumerGroup(group: string | undefined): asserts group is string {
  checkGroupArg('consumerGroup', group);
  if (group === MixAll.DEFAULT_CONSUMER_GROUP) {
    throw new ValidationError(
      `consumerGroup can not equal ${MixAll.DEFAULT_CONSUMER_GROUP}, please specify another one.`,
      -1,
    );
  }
}

/** A strategy must at least have allocate(); undefined takes the default (averagely). */
export function checkStrategy(
  strategy: AllocateMessageQueueStrategy | undefined,
): AllocateMessageQueueStrategy | undefined {
  if (
    strategy !== undefined &&
    (strategy === null || typeof strategy !== 'object' || typeof strategy.allocate !== 'function')
  ) {
    throw new ValidationError(
      'allocateMessageQueueStrategy must have an allocate(group, cid, mqAll, cidAll) method',
      -1,
    );
  }
  return strategy;
}

/** localOffsetStoreDir: absent (the default directory) or a non-empty path. */
export function checkLocalOffsetStoreDir(dir: unknown): string | undefined {
  if (dir !== undefined && (typeof dir !== 'string' || dir.length === 0)) {
    throw new ValidationError('localOffsetStoreDir must be a non-empty path', -1);
  }
  return dir;
}

/** Upstream's check of the pull consumers: a long poll must time out after the broker gives it up. */
export function checkLongPolling(options: {
  readonly consumerTimeoutMillisWhenSuspend: number;
  readonly brokerSuspendMaxTimeMillis: number;
}): void {
  if (options.consumerTimeoutMillisWhenSuspend < options.brokerSuspendMaxTimeMillis) {
    throw new ValidationError(
      'Long polling mode, the consumer consumerTimeoutMillisWhenSuspend must greater than brokerSuspendMaxTimeMillis',
      -1,
    );
  }
}
