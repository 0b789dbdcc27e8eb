/**
 * The records of the revive topic as the ack, change-invisible-time and revive paths write and read
 * them (decision 2 of the POP design: plain messages put at once into queue `reviveQid` of
 * `rmq_sys_REVIVE_LOG_<cluster>`, not timer messages): tag `ck` with a PopCheckPoint JSON body, `ack`
 * with an AckMsg, `bAck` with a BatchAckMsg; the UNIQ_KEY property is upstream's
 * PopMessageProcessor.gen{Ck,Ack}UniqueId. Codecs and names are src/common/pop's.
 */
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import {
  type AckMsg,
  decodeAckMsg,
  decodeBatchAckMsg,
  decodePopCheckPoint,
  encodeAckMsg,
  encodeBatchAckMsg,
  encodePopCheckPoint,
  PopAckConstants,
  type PopCheckPoint,
} from '../../common/pop/index.js';
import { type PutMessageResult, PutMessageStatus } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { storeHostOf } from '../processor/send-message-support.js';
import type { ReviveAck, ReviveCheckPoint } from './pop-revive-state.js';

/** PopAckConstants.retryQueueNum: queues of a POP retry topic created by the revive service. */
export const POP_RETRY_QUEUE_NUM = 1;
/** Ours: marks the batch ack the revive service writes after re-putting messages (see PopReviveService). */
export const REVIVE_MARKER_PROPERTY = 'POP_REVIVED';
/** Ours: marks the ack of the old checkpoint CHANGE_MESSAGE_INVISIBLETIME writes (not a consumer's ack). */
export const CHANGE_ACK_PROPERTY = 'POP_CHANGED';
/** Ours: on a CK record CHANGE_MESSAGE_INVISIBLETIME writes, the merge key of the checkpoint it replaces. */
export const PREVIOUS_CK_PROPERTY = 'POP_CK_PREVIOUS';

const { CK_TAG, ACK_TAG, BATCH_ACK_TAG, SPLIT } = PopAckConstants;

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

// ---- JSON bodies (src/common/pop codecs; offsets bigint, times as numbers here) ----

/** A time or invisible time as a number (saturated: the state only compares it with the clock). */
function time(v: bigint): number {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
}

function fromCheckPoint(ck: PopCheckPoint): ReviveCheckPoint | undefined {
  if (ck.topic === undefined || ck.cid === undefined) return undefined;
  return {
    topic: ck.topic,
    group: ck.cid,
    queueId: ck.queueId,
    startOffset: ck.startOffset,
    popTime: time(ck.popTime),
    invisibleTime: time(ck.invisibleTime),
    bitMap: ck.bitMap,
    num: ck.num,
    queueOffsetDiff: ck.queueOffsetDiff ?? [],
    brokerName: ck.brokerName ?? '',
  };
}

function fromAck(a: AckMsg, offsets: readonly bigint[]): ReviveAck {
  return {
    topic: a.topic ?? '',
    group: a.consumerGroup ?? '',
    queueId: a.queueId,
    startOffset: a.startOffset,
    popTime: time(a.popTime),
    brokerName: a.brokerName ?? '',
    ackOffsets: offsets,
  };
}

/** A CK or ACK record read back from the revive queue; undefined for any other (or unreadable) record. */
export function decodeReviveRecord(
  msg: MessageExt,
): { kind: 'ck'; ck: ReviveCheckPoint } | { kind: 'ack'; ack: ReviveAck } | undefined {
  const tag = msg.tags;
  try {
    if (tag === CK_TAG) {
      const ck = fromCheckPoint(decodePopCheckPoint(msg.body));
      if (ck === undefined) return undefined;
      const previous = msg.properties.get(PREVIOUS_CK_PROPERTY);
      return { kind: 'ck', ck: previous === undefined ? ck : { ...ck, previous } };
    }
    let ack: ReviveAck;
    if (tag === ACK_TAG) {
      const a = decodeAckMsg(msg.body);
      ack = fromAck(a, [a.ackOffset]);
    } else if (tag === BATCH_ACK_TAG) {
      const a = decodeBatchAckMsg(msg.body);
      ack = fromAck(a, a.ackOffsetList);
    } else {
      return undefined;
    }
    const marker = msg.properties.get(REVIVE_MARKER_PROPERTY) === 'true';
    const change = msg.properties.get(CHANGE_ACK_PROPERTY) === 'true';
    return { kind: 'ack', ack: marker || change ? { ...ack, reviveMarker: marker, changeAck: change } : ack };
  } catch {
    return undefined;
  }
}

function toCheckPoint(ck: ReviveCheckPoint, invisibleTime: bigint): PopCheckPoint {
  return {
    startOffset: ck.startOffset,
    popTime: BigInt(ck.popTime),
    invisibleTime,
    bitMap: ck.bitMap,
    num: ck.num,
    queueId: ck.queueId,
    topic: ck.topic,
    cid: ck.group,
    reviveOffset: 0n,
    queueOffsetDiff: [...ck.queueOffsetDiff],
    brokerName: ck.brokerName,
  };
}

function toAck(ack: ReviveAck, batch: boolean): string {
  const a: AckMsg = {
    ackOffset: batch ? 0n : (ack.ackOffsets[0] ?? -1n),
    startOffset: ack.startOffset,
    consumerGroup: ack.group,
    topic: ack.topic,
    queueId: ack.queueId,
    popTime: BigInt(ack.popTime),
    brokerName: ack.brokerName,
  };
  return batch ? encodeBatchAckMsg({ ...a, ackOffsetList: [...ack.ackOffsets] }) : encodeAckMsg(a);
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
  broker.popRevive.ensureReviveTopic();
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
  return [ck.topic, ck.queueId, ck.startOffset, ck.group, ck.popTime, ck.brokerName, CK_TAG].join(SPLIT);
}

/** PopMessageProcessor.genAckUniqueId (a batch record gets it too, with ackOffset -1, as upstream). */
export function ackUniqueId(ack: ReviveAck, ackOffset: bigint): string {
  return [ack.topic, ack.queueId, ackOffset, ack.group, ack.popTime, ack.brokerName, ACK_TAG].join(SPLIT);
}

/** A CK record; `invisibleTime` exactly as requested (the checkpoint's number may be saturated). */
export function checkPointMessage(
  broker: BrokerContext,
  reviveTopic: string,
  reviveQid: number,
  ck: ReviveCheckPoint,
  invisibleTime: bigint = BigInt(ck.invisibleTime),
): MessageExtBrokerInner {
  const body = encodePopCheckPoint(toCheckPoint(ck, invisibleTime));
  const extra: [string, string][] = ck.previous === undefined ? [] : [[PREVIOUS_CK_PROPERTY, ck.previous]];
  return reviveMessage(broker, reviveTopic, reviveQid, CK_TAG, body, ckUniqueId(ck), extra);
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
    ? reviveMessage(
        broker,
        reviveTopic,
        reviveQid,
        BATCH_ACK_TAG,
        toAck(ack, true),
        ackUniqueId(ack, -1n),
        extra,
      )
    : reviveMessage(
        broker,
        reviveTopic,
        reviveQid,
        ACK_TAG,
        toAck(ack, false),
        ackUniqueId(ack, first),
        extra,
      );
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
  return reviveMessage(
    broker,
    reviveTopic,
    reviveQid,
    BATCH_ACK_TAG,
    toAck(ack, true),
    ackUniqueId(ack, -1n),
    [[REVIVE_MARKER_PROPERTY, 'true']],
  );
}
