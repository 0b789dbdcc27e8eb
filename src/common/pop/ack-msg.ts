/**
 * AckMsg and BatchAckMsg, the revive-log records (tags `ack` and `bAck`) that settle popped
 * messages of a checkpoint. JSON as the 5.5.0 broker writes it with fastjson2 (short keys, sorted,
 * null fields left out): `{"ao":105,"bn":"b","c":"G","pt":..,"q":2,"so":100,"t":"T"}`; the batch
 * form adds `aol` (and keeps `ao`, 0). Readers accept the long names too (`alternateNames`).
 */
import { parseFastjson, stringifyFastjson } from '../fastjson/index.js';
import { FastjsonFieldReader } from './json-fields.js';

export interface AckMsg {
  /** Queue offset of the acked message. */
  ackOffset: bigint;
  /** startOffset of the checkpoint the message belongs to. */
  startOffset: bigint;
  consumerGroup?: string | undefined;
  /** The topic the message was popped from (the retry topic for retried messages). */
  topic?: string | undefined;
  queueId: number;
  popTime: bigint;
  brokerName?: string | undefined;
}

export interface BatchAckMsg extends AckMsg {
  ackOffsetList: bigint[];
}

function ackFields(a: AckMsg): Record<string, bigint | number | string | undefined> {
  return {
    ao: a.ackOffset,
    bn: a.brokerName,
    c: a.consumerGroup,
    pt: a.popTime,
    q: a.queueId,
    so: a.startOffset,
    t: a.topic,
  };
}

export function encodeAckMsg(a: AckMsg): string {
  return stringifyFastjson(ackFields(a));
}

export function encodeBatchAckMsg(a: BatchAckMsg): string {
  return stringifyFastjson({ ...ackFields(a), aol: a.ackOffsetList });
}

function readAck(r: FastjsonFieldReader): AckMsg {
  return {
    ackOffset: r.long('ao', 'ackOffset'),
    startOffset: r.long('so', 'startOffset'),
    consumerGroup: r.string('c', 'consumerGroup'),
    topic: r.string('t', 'topic'),
    queueId: r.int('q', 'queueId'),
    popTime: r.long('pt', 'popTime'),
    brokerName: r.string('bn', 'brokerName'),
  };
}

export function decodeAckMsg(text: string | Buffer): AckMsg {
  return readAck(new FastjsonFieldReader('AckMsg', parseFastjson(text, { what: 'AckMsg' })));
}

/** A missing `aol` is an empty list (the Java field's initializer). */
export function decodeBatchAckMsg(text: string | Buffer): BatchAckMsg {
  const r = new FastjsonFieldReader('BatchAckMsg', parseFastjson(text, { what: 'BatchAckMsg' }));
  return { ...readAck(r), ackOffsetList: r.longList('aol', 'ackOffsetList') ?? [] };
}
