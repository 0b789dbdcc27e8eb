/**
 * PopCheckPoint, the revive-log record (tag `ck`) that remembers one pop of one queue: which
 * offsets were handed out, when, for how long, and which have been acked (`bitMap`). JSON as the
 * 5.5.0 broker writes it with fastjson2: short keys, sorted, null fields left out, plus the
 * getter-derived `reviveTime` (popTime + invisibleTime) and 5.5.0's `sp` (suspend) field:
 * `{"bm":0,"bn":"b","c":"G","d":[0,1,5],"it":60000,"n":3,"pt":..,"q":2,"reviveTime":..,"ro":0,"so":100,"sp":false,"t":"T"}`.
 */
import { parseFastjson, stringifyFastjson } from '../fastjson/index.js';
import { FastjsonFieldReader } from './json-fields.js';

export interface PopCheckPoint {
  /** Queue offset of the first popped message; ack offsets are relative to it. */
  startOffset: bigint;
  popTime: bigint;
  invisibleTime: bigint;
  /** Ack bits (int32): bit i set = the i-th popped message is acked. */
  bitMap: number;
  /** How many messages the pop returned (a Java byte, at most 32). */
  num: number;
  queueId: number;
  /** The topic the messages were read from (a retry topic for retried messages). */
  topic?: string | undefined;
  /** The consumer group. */
  cid?: string | undefined;
  /** Offset of this checkpoint in its revive queue (set by the reader, 0 when written). */
  reviveOffset: bigint;
  /** Each message's offset minus startOffset (filtered pops skip offsets); absent in old checkpoints. */
  queueOffsetDiff?: number[] | undefined;
  brokerName?: string | undefined;
  /** How many times revive re-put this checkpoint (a number as text, upstream's type). */
  rePutTimes?: string | undefined;
  /** 5.5.0 lite-topic suspension flag; false here. */
  suspend?: boolean | undefined;
}

/** popTime + invisibleTime. */
export function ckReviveTime(ck: PopCheckPoint): bigint {
  return ck.popTime + ck.invisibleTime;
}

/** Index of `ackOffset` in the checkpoint, or -1 (PopCheckPoint.indexOfAck). */
export function ckIndexOfAck(ck: PopCheckPoint, ackOffset: bigint): number {
  if (ackOffset < ck.startOffset) return -1;
  const rel = ackOffset - ck.startOffset;
  const diff = ck.queueOffsetDiff;
  if (diff === undefined || diff.length === 0) return rel < BigInt(ck.num) ? Number(rel) : -1;
  if (rel > 2147483647n) return -1;
  return diff.indexOf(Number(rel));
}

/** The queue offset of the index-th popped message (PopCheckPoint.ackOffsetByIndex). */
export function ckAckOffsetByIndex(ck: PopCheckPoint, index: number): bigint {
  const diff = ck.queueOffsetDiff;
  if (diff === undefined || diff.length === 0) return ck.startOffset + BigInt(index);
  return ck.startOffset + BigInt(diff[index] ?? 0);
}

/** PopCheckPoint.parseRePutTimes: absent 0, unparsable 127 (Byte.MAX_VALUE). */
export function ckRePutTimes(ck: PopCheckPoint): number {
  if (ck.rePutTimes === undefined) return 0;
  const n = /^[+-]?\d{1,10}$/.test(ck.rePutTimes) ? Number(ck.rePutTimes) : Number.NaN;
  return Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : 127;
}

export function encodePopCheckPoint(ck: PopCheckPoint): string {
  return stringifyFastjson({
    bm: ck.bitMap | 0,
    bn: ck.brokerName,
    c: ck.cid,
    d: ck.queueOffsetDiff,
    it: ck.invisibleTime,
    n: ck.num,
    pt: ck.popTime,
    q: ck.queueId,
    reviveTime: ckReviveTime(ck),
    ro: ck.reviveOffset,
    rp: ck.rePutTimes,
    so: ck.startOffset,
    sp: ck.suspend ?? false,
    t: ck.topic,
  });
}

/** Reads a checkpoint record body. Throws a RemotingCommandError-style ValidationError when malformed. */
export function decodePopCheckPoint(text: string | Buffer): PopCheckPoint {
  const r = new FastjsonFieldReader('PopCheckPoint', parseFastjson(text, { what: 'PopCheckPoint' }));
  const diff = r.intList('d');
  const num = r.int('n');
  if (num < -128 || num > 127) r.fail('n', 'not a byte');
  return {
    startOffset: r.long('so'),
    popTime: r.long('pt'),
    invisibleTime: r.long('it'),
    bitMap: r.int('bm'),
    num,
    queueId: r.int('q'),
    topic: r.string('t'),
    cid: r.string('c'),
    reviveOffset: r.long('ro'),
    queueOffsetDiff: diff,
    brokerName: r.string('bn'),
    rePutTimes: r.string('rp'),
    suspend: r.boolean('sp'),
  };
}
