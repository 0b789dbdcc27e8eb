/**
 * Upstream HookUtils.handleScheduleMessage / checkIfTimerMessage / transformTimerMessage (5.5.0),
 * run by the send and end-transaction paths before the store (upstream runs them as a store put
 * hook; internal puts here go to the store directly and are never transformed). A message with
 * TIMER_DELIVER_MS, TIMER_DELAY_SEC or TIMER_DELAY_MS and no delay level is parked in
 * `rmq_sys_wheel_timer` queue 0 with TIMER_OUT_MS (its slot time), REAL_TOPIC and REAL_QID; the
 * timer store gives it out when due. A message with a delay level loses its TIMER_* properties and
 * keeps the delay-level path (the store's). Transaction-prepared and rollback messages are left
 * alone (a committed one is transformed at its commit).
 */
import { parseJavaLong } from '../../common/java-parse.js';
import { MessageConst } from '../../common/message/message-const.js';
import { getTransactionValue, MessageSysFlag } from '../../common/message/sysflag.js';
import { parseDelayLevel } from '../../store/delay-level.js';
import { getProperty } from '../../store/dispatch-request.js';
import { PutMessageStatus } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import { snapTimerPrecisionMs, TIMER_TOPIC } from '../../store/timer/timer-config.js';
import type { BrokerContext } from './broker-context.js';

export interface TimerHookContext {
  readonly timerWheelEnable: boolean;
  readonly timerMaxDelaySec: number;
  readonly timerPrecisionMs: number;
  now(): number;
  /** The timer store's flow control (false when there is none). */
  isReject(deliverMs: number): boolean;
}

const TIMER_REQUEST_PROPERTIES: readonly string[] = [
  MessageConst.PROPERTY_TIMER_DELIVER_MS,
  MessageConst.PROPERTY_TIMER_DELAY_SEC,
  MessageConst.PROPERTY_TIMER_DELAY_MS,
];
const TIMER_REWRITTEN_PROPERTIES: readonly string[] = [
  MessageConst.PROPERTY_TIMER_OUT_MS,
  MessageConst.PROPERTY_REAL_TOPIC,
  MessageConst.PROPERTY_REAL_QUEUE_ID,
];
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

export type TimerRefusal =
  | typeof PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL
  | typeof PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL
  | typeof PutMessageStatus.WHEEL_TIMER_NOT_ENABLE;

const NAME_VALUE_SEPARATOR = '\u0001';
const PROPERTY_SEPARATOR = '\u0002';

/**
 * The properties string without the named entries and with `pairs` appended: what upstream gets by
 * parsing into its map, putting, removing and joining again. Entries keep their order (readers
 * parse the string into a map, so only bytes differ).
 */
function rewriteProperties(
  props: string,
  drop: readonly string[],
  pairs: ReadonlyArray<readonly [string, string]>,
): string {
  const kept = props
    .split(PROPERTY_SEPARATOR)
    .filter(
      (entry) => entry.length > 0 && !drop.some((name) => entry.startsWith(name + NAME_VALUE_SEPARATOR)),
    );
  for (const [name, value] of pairs) kept.push(name + NAME_VALUE_SEPARATOR + value);
  return kept.join(PROPERTY_SEPARATOR);
}

function delayLevelOf(msg: MessageExtBrokerInner): number {
  if (msg.delayTimeLevel !== undefined) return msg.delayTimeLevel;
  const text = getProperty(msg.propertiesString, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  return text === undefined ? 0 : (parseDelayLevel(text) ?? 0);
}

/** Java's long arithmetic: wraps on overflow, as upstream's `now + sec * 1000` does. */
function javaLong(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

/**
 * Applies the transform to `msg` in place. Undefined when it may be stored (transformed or not),
 * else the status to refuse it with (mapped to response codes as upstream's handlePutMessageResult).
 */
export function handleScheduleMessage(
  ctx: TimerHookContext,
  msg: MessageExtBrokerInner,
): TimerRefusal | undefined {
  const tranType = getTransactionValue(msg.sysFlag);
  if (
    tranType !== MessageSysFlag.TRANSACTION_NOT_TYPE &&
    tranType !== MessageSysFlag.TRANSACTION_COMMIT_TYPE
  ) {
    return undefined;
  }
  // Most messages carry no TIMER_ property: one scan of the string settles it.
  if (!msg.propertiesString.includes('TIMER_')) return undefined;
  // isRolledTimerMessage: a message already in the timer topic is the timer's own.
  if (msg.topic === TIMER_TOPIC) return undefined;
  if (!checkIfTimerMessage(msg)) return undefined;
  if (!ctx.timerWheelEnable) return PutMessageStatus.WHEEL_TIMER_NOT_ENABLE;
  return transformTimerMessage(ctx, msg);
}

/** Upstream checkIfTimerMessage: with a delay level the TIMER_* requests are dropped and the level wins. */
export function checkIfTimerMessage(msg: MessageExtBrokerInner): boolean {
  const props = msg.propertiesString;
  if (delayLevelOf(msg) > 0) {
    if (TIMER_REQUEST_PROPERTIES.some((name) => getProperty(props, name) !== undefined)) {
      msg.propertiesString = rewriteProperties(props, TIMER_REQUEST_PROPERTIES, []);
    }
    return false;
  }
  if (msg.topic === TIMER_TOPIC || getProperty(props, MessageConst.PROPERTY_TIMER_OUT_MS) !== undefined) {
    return false;
  }
  return TIMER_REQUEST_PROPERTIES.some((name) => getProperty(props, name) !== undefined);
}

/** Upstream's slot time of a delivery time: rounded down to the precision; an exact multiple one step earlier. */
export function timerOutMs(deliverMs: bigint, precisionMs: number): bigint {
  const p = BigInt(precisionMs);
  // Java's % and / truncate toward zero; deliverMs is after now here, so positive.
  return deliverMs % p === 0n ? deliverMs - p : (deliverMs / p) * p;
}

/**
 * The delivery time the message asks for: TIMER_DELAY_SEC, else TIMER_DELAY_MS (both from now),
 * else TIMER_DELIVER_MS; undefined when the one that counts is not a Java long.
 */
export function requestedDeliverMs(props: string, now: number): bigint | undefined {
  const sec = getProperty(props, MessageConst.PROPERTY_TIMER_DELAY_SEC);
  if (sec !== undefined) {
    const v = parseJavaLong(sec);
    return v === undefined ? undefined : javaLong(BigInt(now) + javaLong(v * 1000n));
  }
  const ms = getProperty(props, MessageConst.PROPERTY_TIMER_DELAY_MS);
  if (ms !== undefined) {
    const v = parseJavaLong(ms);
    return v === undefined ? undefined : javaLong(BigInt(now) + v);
  }
  const at = getProperty(props, MessageConst.PROPERTY_TIMER_DELIVER_MS);
  const v = at === undefined ? undefined : parseJavaLong(at);
  return v === undefined || v < LONG_MIN || v > LONG_MAX ? undefined : v;
}

function transformTimerMessage(ctx: TimerHookContext, msg: MessageExtBrokerInner): TimerRefusal | undefined {
  const now = ctx.now();
  const deliverMs = requestedDeliverMs(msg.propertiesString, now);
  if (deliverMs === undefined) return PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL;
  const nowBig = BigInt(now);
  if (deliverMs > nowBig) {
    // The delay level is 0 here (checkIfTimerMessage returned false otherwise).
    if (deliverMs - nowBig > BigInt(ctx.timerMaxDelaySec) * 1000n)
      return PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL;
    const outMs = timerOutMs(deliverMs, ctx.timerPrecisionMs);
    if (ctx.isReject(Number(outMs))) return PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL;
    msg.propertiesString = rewriteProperties(msg.propertiesString, TIMER_REWRITTEN_PROPERTIES, [
      [MessageConst.PROPERTY_TIMER_OUT_MS, String(outMs)],
      [MessageConst.PROPERTY_REAL_TOPIC, msg.topic],
      [MessageConst.PROPERTY_REAL_QUEUE_ID, String(msg.queueId)],
    ]);
    msg.topic = TIMER_TOPIC;
    msg.queueId = 0;
  } else if (getProperty(msg.propertiesString, MessageConst.PROPERTY_TIMER_DEL_UNIQKEY) !== undefined) {
    // A delete marker for a time already past cannot delete anything.
    return PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL;
  }
  // A time already past: stored as a normal message, its TIMER_* properties kept.
  return undefined;
}

/** The hook's view of a broker: its live settings and its timer store's flow control. */
export function timerHookContext(broker: BrokerContext): TimerHookContext {
  const timer = broker.timerMessageStore;
  return {
    timerWheelEnable: broker.config.timerWheelEnable,
    timerMaxDelaySec: broker.config.timerMaxDelaySec,
    timerPrecisionMs: timer?.precisionMs ?? snapTimerPrecisionMs(broker.config.timerPrecisionMs),
    now: () => broker.clock.now(),
    isReject: (deliverMs) => timer?.isReject(deliverMs) ?? false,
  };
}
