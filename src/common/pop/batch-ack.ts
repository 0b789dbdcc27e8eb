/**
 * The BATCH_ACK_MESSAGE (200151) body, BatchAckMessageRequestBody `{"acks":[BatchAck],"brokerName":..}`.
 * A BatchAck names one checkpoint (group, topic, retry flag, start offset, queue, revive queue, pop
 * time, invisible time) and the acked messages as a BitSet over `startOffset + i`
 * (`b`, base64 of BitSet.toByteArray). Written as the 5.5.0 client writes it (fastjson2, sorted keys):
 * `{"acks":[{"b":"CQIAgA==","c":"G","it":60000,"pt":..,"q":1,"r":"0","rq":3,"so":100,"t":"T"}],"brokerName":"b"}`.
 */
import { ValidationError } from '../errors.js';
import { type FastjsonValue, parseFastjson, stringifyFastjson } from '../fastjson/index.js';
import { bitSetFromBase64, bitSetFromBytes, bitSetToBase64 } from './bit-set.js';
import { FastjsonFieldReader } from './json-fields.js';

export interface BatchAck {
  consumerGroup?: string | undefined;
  topic?: string | undefined;
  /** Retry flag as in receipt handles: "0" normal, "1" V1 retry topic, "2" V2. */
  retry?: string | undefined;
  startOffset: bigint;
  queueId: number;
  reviveQueueId: number;
  popTime: bigint;
  invisibleTime: bigint;
  /** Set bits, ascending: bit i acks offset startOffset + i. Absent = null in Java. */
  bitSet?: number[] | undefined;
}

export interface BatchAckMessageRequestBody {
  brokerName?: string | undefined;
  acks?: BatchAck[] | undefined;
}

export function encodeBatchAckMessageRequestBody(b: BatchAckMessageRequestBody): Buffer {
  const acks = b.acks?.map((a) => ({
    b: a.bitSet === undefined ? undefined : bitSetToBase64(a.bitSet),
    c: a.consumerGroup,
    it: a.invisibleTime,
    pt: a.popTime,
    q: a.queueId,
    r: a.retry,
    rq: a.reviveQueueId,
    so: a.startOffset,
    t: a.topic,
  }));
  return Buffer.from(stringifyFastjson({ acks, brokerName: b.brokerName }), 'utf8');
}

function readBitSet(r: FastjsonFieldReader): number[] | undefined {
  const v = r.raw('b', 'bitSet');
  if (v === undefined) return undefined;
  try {
    if (typeof v === 'string') return bitSetFromBase64(v);
    // fastjson also reads a byte[] written as an array of numbers.
    if (
      Array.isArray(v) &&
      v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= -128 && x <= 255)
    ) {
      return bitSetFromBytes(Uint8Array.from(v as number[], (x) => x & 0xff));
    }
  } catch (e) {
    if (e instanceof ValidationError) r.fail('b', e.message);
    throw e;
  }
  return r.fail('b', 'not a bit set');
}

function readBatchAck(what: string, value: FastjsonValue): BatchAck {
  const r = new FastjsonFieldReader(what, value);
  return {
    consumerGroup: r.string('c', 'consumerGroup'),
    topic: r.string('t', 'topic'),
    retry: r.string('r', 'retry'),
    startOffset: r.long('so', 'startOffset'),
    queueId: r.int('q', 'queueId'),
    reviveQueueId: r.int('rq', 'reviveQueueId'),
    popTime: r.long('pt', 'popTime'),
    invisibleTime: r.long('it', 'invisibleTime'),
    bitSet: readBitSet(r),
  };
}

/** Reads the body. Throws a RemotingCommandError (or ValidationError) when malformed, never more. */
export function decodeBatchAckMessageRequestBody(body: Buffer | string): BatchAckMessageRequestBody {
  const what = 'BatchAckMessageRequestBody';
  const r = new FastjsonFieldReader(what, parseFastjson(body, { what }));
  const acks = r.records('acks')?.map((v, i) => readBatchAck(`${what}.acks[${i}]`, v));
  return { brokerName: r.string('brokerName'), acks };
}
