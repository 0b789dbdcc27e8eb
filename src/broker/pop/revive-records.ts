/**
 * The records of the revive topic as the ack, change-invisible-time and revive paths write and read
 * them (decision 2 of the POP design: plain messages put at once into queue `reviveQid` of
 * `rmq_sys_REVIVE_LOG_<cluster>`, not timer messages): tag `ck` with a PopCheckPoint JSON body, `ack`
 * with an AckMsg, `bAck` with a BatchAckMsg; the UNIQ_KEY property is upstream's
 * PopMessageProcessor.gen{Ck,Ack}UniqueId. Also the POP names the revive side needs (KeyBuilder,
 * PopAckConstants).
 */
import { MixAll } from '../../common/constants.js';
import { parseFastjson, stringifyFastjson } from '../../common/fastjson/index.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { type PutMessageResult, PutMessageStatus } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { storeHostOf } from '../processor/send-message-support.js';
import type { ReviveAck, ReviveCheckPoint } from './pop-revive-state.js';

/** PopAckConstants.REVIVE_GROUP: the consumer group whose offsets are the revive positions. */
export const REVIVE_GROUP = `${MixAll.CID_RMQ_SYS_PREFIX}REVIVE_GROUP`;
export const CK_TAG = 'ck';
export const ACK_TAG = 'ack';
export const BATCH_ACK_TAG = 'bAck';
/** KeyBuilder.POP_ORDER_REVIVE_QUEUE: the reviveQid of a FIFO pop's handle (no revive record). */
export const POP_ORDER_REVIVE_QUEUE = 999;
/** PopAckConstants.retryQueueNum: queues of a POP retry topic created by the revive service. */
export const POP_RETRY_QUEUE_NUM = 1;
/** MessageConst.PROPERTY_FIRST_POP_TIME. */
export const FIRST_POP_TIME = '1ST_POP_TIME';
/** Ours: marks the batch ack the revive service writes after re-putting messages (see PopReviveService). */
export const REVIVE_MARKER_PROPERTY = 'POP_REVIVED';
/** Ours: marks the ack of the old checkpoint CHANGE_MESSAGE_INVISIBLETIME writes (not a consumer's ack). */
export const CHANGE_ACK_PROPERTY = 'POP_CHANGED';

/** PopAckConstants.buildClusterReviveTopic. */
export function buildClusterReviveTopic(clusterName: string): string {
  return `rmq_sys_REVIVE_LOG_${clusterName}`;
}

/** KeyBuilder.buildPopRetryTopic. */
export function buildPopRetryTopic(topic: string, group: string, v2: boolean): string {
  return `${MixAll.RETRY_GROUP_TOPIC_PREFIX}${group}${v2 ? '+' : '_'}${topic}`;
}

/** KeyBuilder.parseNormalTopic(topic, cid). */
export function parseNormalTopic(topic: string, group: string): string {
  if (!topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) return topic;
  const v2 = `${MixAll.RETRY_GROUP_TOPIC_PREFIX}${group}+`;
  if (topic.startsWith(v2)) return topic.slice(v2.length);
  return topic.slice(`${MixAll.RETRY_GROUP_TOPIC_PREFIX}${group}_`.length);
}

/** A put the store kept (upstream treats the flush/slave timeouts as written too). */
export function stored(result: PutMessageResult): boolean {
  const s = result.putMessageStatus;
  return (
    s === PutMessageStatus.PUT_OK ||
    s === PutMessageStatus.FLUSH_DISK_TIMEOUT ||
    s === PutMessageStatus.FLUSH_SLAVE_TIMEOUT ||
    s === PutMessageStatus.SLAVE_NOT_AVAILABLE
  );
}

// ---- JSON bodies (upstream's short keys) ----

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return Number.NaN;
}

function big(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function field(o: Record<string, unknown>, short: string, long: string): unknown {
  return o[short] ?? o[long];
}

function decodeCheckPoint(o: Record<string, unknown>): ReviveCheckPoint | undefined {
  const startOffset = big(field(o, 'so', 'startOffset'));
  const diff = field(o, 'd', 'queueOffsetDiff');
  const ck: ReviveCheckPoint = {
    topic: str(field(o, 't', 'topic')),
    group: str(field(o, 'c', 'cid')),
    queueId: num(field(o, 'q', 'queueId')),
    startOffset: startOffset ?? -1n,
    popTime: num(field(o, 'pt', 'popTime')),
    invisibleTime: num(field(o, 'it', 'invisibleTime')),
    bitMap: num(field(o, 'bm', 'bitMap')) | 0,
    num: num(field(o, 'n', 'num')),
    queueOffsetDiff: Array.isArray(diff) ? diff.map(num) : [],
    brokerName: str(field(o, 'bn', 'brokerName')),
  };
  if (startOffset === undefined || ck.topic === '' || ck.group === '') return undefined;
  if (![ck.queueId, ck.popTime, ck.invisibleTime, ck.num].every(Number.isFinite)) return undefined;
  if (ck.queueOffsetDiff.some((d) => !Number.isInteger(d))) return undefined;
  return ck;
}

function decodeAck(o: Record<string, unknown>, batch: boolean): ReviveAck | undefined {
  const startOffset = big(field(o, 'so', 'startOffset'));
  let offsets: bigint[];
  if (batch) {
    const list = field(o, 'aol', 'ackOffsetList');
    offsets = Array.isArray(list) ? list.map(big).filter((v): v is bigint => v !== undefined) : [];
  } else {
    const one = big(field(o, 'ao', 'ackOffset'));
    offsets = one === undefined ? [] : [one];
  }
  const ack: ReviveAck = {
    topic: str(field(o, 't', 'topic')),
    group: str(field(o, 'c', 'consumerGroup')),
    queueId: num(field(o, 'q', 'queueId')),
    startOffset: startOffset ?? -1n,
    popTime: num(field(o, 'pt', 'popTime')),
    brokerName: str(field(o, 'bn', 'brokerName')),
    ackOffsets: offsets,
  };
  if (startOffset === undefined || !Number.isFinite(ack.queueId) || !Number.isFinite(ack.popTime)) return undefined;
  return ack;
}

/** A CK or ACK record read back from the revive queue; undefined for any other (or unreadable) record. */
export function decodeReviveRecord(
  msg: MessageExt,
): { kind: 'ck'; ck: ReviveCheckPoint } | { kind: 'ack'; ack: ReviveAck } | undefined {
  const tag = msg.tags;
  if (tag !== CK_TAG && tag !== ACK_TAG && tag !== BATCH_ACK_TAG) return undefined;
  let value: unknown;
  try {
    value = parseFastjson(msg.body, { what: 'revive record' });
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (tag === CK_TAG) {
    const ck = decodeCheckPoint(o);
    return ck === undefined ? undefined : { kind: 'ck', ck };
  }
  const ack = decodeAck(o, tag === BATCH_ACK_TAG);
  if (ack === undefined) return undefined;
  const marker = msg.properties.get(REVIVE_MARKER_PROPERTY) === 'true';
  const change = msg.properties.get(CHANGE_ACK_PROPERTY) === 'true';
  return {
    kind: 'ack',
    ack: marker || change ? { ...ack, reviveMarker: marker, changeAck: change } : ack,
  };
}

export function checkPointJson(ck: ReviveCheckPoint): string {
  return stringifyFastjson({
    bm: ck.bitMap,
    bn: ck.brokerName,
    c: ck.group,
    d: [...ck.queueOffsetDiff],
    it: ck.invisibleTime,
    n: ck.num,
    pt: ck.popTime,
    q: ck.queueId,
    so: ck.startOffset,
    t: ck.topic,
  });
}

function ackJson(ack: ReviveAck, batch: boolean): string {
  const base = {
    ao: batch ? -1 : (ack.ackOffsets[0] ?? -1n),
    bn: ack.brokerName,
    c: ack.group,
    pt: ack.popTime,
    q: ack.queueId,
    so: ack.startOffset,
    t: ack.topic,
  };
  return stringifyFastjson(batch ? { ...base, aol: [...ack.ackOffsets] } : base);
}

// ---- records ----

function reviveMessage(
  broker: BrokerContext,
  reviveTopic: string,
  reviveQid: number,
  tag: string,
  body: string,
  uniqKey: string,
  extra?: readonly [string, string][],
): MessageExtBrokerInner {
  const host = storeHostOf(broker);
  const properties = new Map<string, string>([
    [MessageConst.PROPERTY_TAGS, tag],
    [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uniqKey],
    ...(extra ?? []),
  ]);
  return {
    topic: reviveTopic,
    queueId: reviveQid,
    flag: 0,
    body: Buffer.from(body, 'utf8'),
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(tag),
    sysFlag: 0,
    bornTimestamp: BigInt(broker.clock.now()),
    bornHost: host,
    storeHost: host,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
    delayTimeLevel: 0,
  };
}

/** PopMessageProcessor.genCkUniqueId. */
export function ckUniqueId(ck: ReviveCheckPoint): string {
  return `${ck.topic}@${ck.queueId}@${ck.startOffset}@${ck.group}@${ck.popTime}@${ck.brokerName}@${CK_TAG}`;
}

/** PopMessageProcessor.genAckUniqueId (a batch record gets it too, with ackOffset -1, as upstream). */
export function ackUniqueId(ack: ReviveAck, ackOffset: bigint): string {
  return `${ack.topic}@${ack.queueId}@${ackOffset}@${ack.group}@${ack.popTime}@${ack.brokerName}@${ACK_TAG}`;
}

export function checkPointMessage(
  broker: BrokerContext,
  reviveTopic: string,
  reviveQid: number,
  ck: ReviveCheckPoint,
): MessageExtBrokerInner {
  return reviveMessage(broker, reviveTopic, reviveQid, CK_TAG, checkPointJson(ck), ckUniqueId(ck));
}

/** One `ack` record (one offset), or a `bAck` one (BATCH_ACK_MESSAGE: every offset of the BatchAck). */
export function ackMessage(
  broker: BrokerContext,
  reviveTopic: string,
  reviveQid: number,
  ack: ReviveAck,
  batch: boolean,
  extra?: readonly [string, string][],
): MessageExtBrokerInner {
  const first = ack.ackOffsets[0] ?? -1n;
  return batch
    ? reviveMessage(broker, reviveTopic, reviveQid, BATCH_ACK_TAG, ackJson(ack, true), ackUniqueId(ack, -1n), extra)
    : reviveMessage(broker, reviveTopic, reviveQid, ACK_TAG, ackJson(ack, false), ackUniqueId(ack, first), extra);
}

/** The batch ack the revive service writes for the messages of `ck` it re-put. */
export function reviveMarkerMessage(
  broker: BrokerContext,
  reviveTopic: string,
  reviveQid: number,
  ck: ReviveCheckPoint,
  offsets: readonly bigint[],
): MessageExtBrokerInner {
  const ack: ReviveAck = {
    topic: ck.topic,
    group: ck.group,
    queueId: ck.queueId,
    startOffset: ck.startOffset,
    popTime: ck.popTime,
    brokerName: ck.brokerName,
    ackOffsets: offsets,
  };
  return reviveMessage(broker, reviveTopic, reviveQid, BATCH_ACK_TAG, ackJson(ack, true), ackUniqueId(ack, -1n), [
    [REVIVE_MARKER_PROPERTY, 'true'],
  ]);
}
