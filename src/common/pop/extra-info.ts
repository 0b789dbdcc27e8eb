/**
 * The POP receipt handle ("extraInfo", message property POP_CK) and the info strings of the
 * PopMessageResponseHeader, as upstream's ExtraInfoUtil builds and parses them.
 *
 * Handle: `ckQueueOffset popTime invisibleTime reviveQid retryFlag brokerName queueId [queueOffset]`
 * separated by single spaces; retryFlag is `0` (normal topic), `1` (`%RETRY%group_topic`) or `2`
 * (`%RETRY%group+topic`); reviveQid 999 marks a FIFO pop.
 * Info strings are `;`-separated items of three space-separated fields:
 * startOffsetInfo `retry queueId ckStartOffset`, msgOffsetInfo `retry queueId off1,off2,...`,
 * orderCountInfo `retry queueId count` or, per message, `retry qo<queueId>%<queueOffset> count`.
 *
 * Handles come from peers: every parser here throws an ExtraInfoError (INVALID_PARAMETER-worthy)
 * on malformed text, never anything else, so a forged handle cannot crash a processor.
 */
import { ValidationError } from '../errors.js';
import { parseJavaInt, parseJavaLong } from '../java-parse.js';
import {
  buildPopRetryTopicV1,
  buildPopRetryTopicV2,
  isPopRetryTopicV2,
  POP_ORDER_REVIVE_QUEUE,
} from './key-builder.js';

const KEY_SEPARATOR = ' ';
const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
export const NORMAL_TOPIC_FLAG = '0';
export const RETRY_TOPIC_FLAG = '1';
export const RETRY_TOPIC_V2_FLAG = '2';
const QUEUE_OFFSET = 'qo';

/** A receipt handle or info string that does not parse. */
export class ExtraInfoError extends ValidationError {}

/** The fields of a receipt handle. `queueOffset` is absent in 7-field handles. */
export interface ExtraInfo {
  ckQueueOffset: bigint;
  popTime: bigint;
  invisibleTime: bigint;
  reviveQid: number;
  /** `0`, `1` or `2` as written (upstream keeps the text). */
  retry: string;
  brokerName: string;
  queueId: number;
  queueOffset?: bigint;
}

/** Java's `String.split(" ")`: trailing empty strings are removed. */
function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** ExtraInfoUtil.split. */
export function splitExtraInfo(extraInfo: string | undefined): string[] {
  if (extraInfo === undefined) throw new ExtraInfoError('split extraInfo is null');
  return javaSplit(extraInfo, KEY_SEPARATOR);
}

function need(parts: readonly string[], n: number, what: string): string {
  const v = parts[n - 1];
  if (v === undefined) throw new ExtraInfoError(`${what} fail, extraInfoStrs length ${parts.length}`);
  return v;
}

function long(text: string, what: string): bigint {
  const v = parseJavaLong(text);
  if (v === undefined)
    throw new ExtraInfoError(`${what}: not a number: ${JSON.stringify(text.slice(0, 32))}`);
  return v;
}

function int(text: string, what: string): number {
  const v = parseJavaInt(text);
  if (v === undefined)
    throw new ExtraInfoError(`${what}: not a number: ${JSON.stringify(text.slice(0, 32))}`);
  return v;
}

export const getCkQueueOffset = (p: readonly string[]): bigint =>
  long(need(p, 1, 'getCkQueueOffset'), 'getCkQueueOffset');
export const getPopTime = (p: readonly string[]): bigint => long(need(p, 2, 'getPopTime'), 'getPopTime');
export const getInvisibleTime = (p: readonly string[]): bigint =>
  long(need(p, 3, 'getInvisibleTime'), 'getInvisibleTime');
export const getReviveQid = (p: readonly string[]): number => int(need(p, 4, 'getReviveQid'), 'getReviveQid');
export const getRetry = (p: readonly string[]): string => need(p, 5, 'getRetry');
export const getBrokerName = (p: readonly string[]): string => need(p, 6, 'getBrokerName');
export const getQueueId = (p: readonly string[]): number => int(need(p, 7, 'getQueueId'), 'getQueueId');
export const getQueueOffset = (p: readonly string[]): bigint =>
  long(need(p, 8, 'getQueueOffset'), 'getQueueOffset');

/** ExtraInfoUtil.isOrder: reviveQid 999. */
export function isOrderExtraInfo(p: readonly string[]): boolean {
  return getReviveQid(p) === POP_ORDER_REVIVE_QUEUE;
}

/**
 * Parses a whole handle (at least the 7 fields; the 8th, the message's queue offset, when present).
 * Stricter than upstream's getters taken one by one only in that every field must parse.
 */
export function parseExtraInfo(extraInfo: string | undefined): ExtraInfo {
  const p = splitExtraInfo(extraInfo);
  const out: ExtraInfo = {
    ckQueueOffset: getCkQueueOffset(p),
    popTime: getPopTime(p),
    invisibleTime: getInvisibleTime(p),
    reviveQid: getReviveQid(p),
    retry: getRetry(p),
    brokerName: getBrokerName(p),
    queueId: getQueueId(p),
  };
  if (p.length >= 8) out.queueOffset = getQueueOffset(p);
  return out;
}

/** The retry flag of a topic (private ExtraInfoUtil.getRetry(String)). */
export function retryFlagOf(topic: string): string {
  if (isPopRetryTopicV2(topic)) return RETRY_TOPIC_V2_FLAG;
  if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return RETRY_TOPIC_FLAG;
  return NORMAL_TOPIC_FLAG;
}

/** ExtraInfoUtil.getRealTopic(topic, cid, retry): the topic the handle's message was popped from. */
export function getRealTopic(topic: string, group: string, retry: string): string {
  switch (retry) {
    case NORMAL_TOPIC_FLAG:
      return topic;
    case RETRY_TOPIC_FLAG:
      return buildPopRetryTopicV1(topic, group);
    case RETRY_TOPIC_V2_FLAG:
      return buildPopRetryTopicV2(topic, group);
    default:
      throw new ExtraInfoError('getRetry fail, format is wrong');
  }
}

/**
 * ExtraInfoUtil.buildExtraInfo: `topic` is the topic the message was read from (its retry flag is
 * derived from it); `queueOffset` given = the 8-field handle the client builds per message.
 */
export function buildExtraInfo(
  ckQueueOffset: bigint,
  popTime: bigint,
  invisibleTime: bigint,
  reviveQid: number,
  topic: string,
  brokerName: string,
  queueId: number,
  queueOffset?: bigint,
): string {
  const head = [
    ckQueueOffset,
    popTime,
    invisibleTime,
    reviveQid,
    retryFlagOf(topic),
    brokerName,
    queueId,
  ].join(KEY_SEPARATOR);
  return queueOffset === undefined ? head : head + KEY_SEPARATOR + queueOffset;
}

/** One startOffsetInfo item; join items with joinInfo. */
export function startOffsetInfoItem(topic: string, queueId: number, startOffset: bigint): string {
  return `${retryFlagOf(topic)} ${queueId} ${startOffset}`;
}

/** One msgOffsetInfo item. */
export function msgOffsetInfoItem(topic: string, queueId: number, offsets: readonly bigint[]): string {
  return `${retryFlagOf(topic)} ${queueId} ${offsets.join(',')}`;
}

/** One orderCountInfo item for a whole queue (buildQueueIdOrderCountInfo). */
export function queueIdOrderCountItem(topic: string, queueId: number, count: number): string {
  return `${retryFlagOf(topic)} ${queueId} ${count}`;
}

/** One orderCountInfo item for one message (buildQueueOffsetOrderCountInfo). */
export function queueOffsetOrderCountItem(
  topic: string,
  queueId: number,
  queueOffset: bigint,
  count: number,
): string {
  return `${retryFlagOf(topic)} ${getQueueOffsetKeyValueKey(queueId, queueOffset)} ${count}`;
}

/** Joins info items as the StringBuilder appends do (`;` between). */
export function joinInfo(items: readonly string[]): string {
  return items.join(';');
}

/** `qo<queueId>%<queueOffset>`. */
export function getQueueOffsetKeyValueKey(queueId: number, queueOffset: bigint): string {
  return `${QUEUE_OFFSET}${queueId}%${queueOffset}`;
}

/** Key of the parsed info maps: `<retryFlag>@<queueId>`. */
export function getStartOffsetInfoMapKey(topic: string, queueId: number): string {
  return `${retryFlagOf(topic)}@${queueId}`;
}

/** Key of a per-message orderCountInfo entry: `<retryFlag>@qo<queueId>%<queueOffset>`. */
export function getQueueOffsetMapKey(topic: string, queueId: number, queueOffset: bigint): string {
  return `${retryFlagOf(topic)}@${getQueueOffsetKeyValueKey(queueId, queueOffset)}`;
}

function parseInfo<T>(
  what: string,
  info: string | undefined,
  value: (text: string) => T,
): Map<string, T> | undefined {
  if (info === undefined || info.length === 0) return undefined;
  const out = new Map<string, T>();
  for (const one of javaSplit(info, ';')) {
    const split = javaSplit(one, KEY_SEPARATOR);
    if (split.length !== 3) throw new ExtraInfoError(`parse ${what} error, ${info.slice(0, 64)}`);
    const key = `${split[0]}@${split[1]}`;
    if (out.has(key)) throw new ExtraInfoError(`parse ${what} error, duplicate, ${info.slice(0, 64)}`);
    out.set(key, value(split[2] as string));
  }
  return out;
}

/** ExtraInfoUtil.parseStartOffsetInfo: `<retry>@<queueId>` -> checkpoint start offset. */
export function parseStartOffsetInfo(info: string | undefined): Map<string, bigint> | undefined {
  return parseInfo('startOffsetInfo', info, (t) => long(t, 'startOffsetInfo'));
}

/** ExtraInfoUtil.parseMsgOffsetInfo: `<retry>@<queueId>` -> the popped messages' queue offsets. */
export function parseMsgOffsetInfo(info: string | undefined): Map<string, bigint[]> | undefined {
  return parseInfo('msgOffsetMap', info, (t) => javaSplit(t, ',').map((o) => long(o, 'msgOffsetInfo')));
}

/** ExtraInfoUtil.parseOrderCountInfo: `<retry>@<queueId>` or `<retry>@qo<q>%<offset>` -> count. */
export function parseOrderCountInfo(info: string | undefined): Map<string, number> | undefined {
  return parseInfo('orderCountInfo', info, (t) => int(t, 'orderCountInfo'));
}
