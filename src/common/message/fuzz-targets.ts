/**
 * Fuzz entry points. Malformed input must end in a RocketMQError (RemotingCommandError /
 * ValidationError), which these let through as "rejected"; a plain Error means a bug: a crash inside
 * the codec or a decode → encode → decode result that differs from the first decode.
 */

import { RocketMQError, ValidationError } from '../errors.js';
import { decodeBatch, encodeBatch } from './batch.js';
import type { Message, MessageExt } from './message.js';
import { decodeMessage, decodeMessages, encodeMessage, readStoredRecordHeader } from './stored-format.js';

const FUZZ_MAX_BODY = 256 * 1024;

export function fuzzMessageDecode(input: Buffer): void {
  // The inflate path, bounded so a zip bomb cannot slow the run; any typed failure is fine here.
  try {
    decodeMessages(input, { decompress: true, maxBodySize: FUZZ_MAX_BODY });
  } catch (e) {
    if (!(e instanceof RocketMQError)) throw e;
  }
  const first = decodeMessages(input, { decompress: false });
  let offset = 0;
  for (const ext of first) {
    const header = readStoredRecordHeader(input, offset);
    if (header.kind !== 'message' || header.totalSize !== ext.storeSize) {
      throw new Error(`header at ${offset} disagrees with the decoded record`);
    }
    offset += ext.storeSize;
    let bytes: Buffer;
    try {
      bytes = encodeMessage(ext);
    } catch (e) {
      // Replacement characters can grow a topic or properties past what a record may hold.
      if (e instanceof ValidationError) continue;
      throw e;
    }
    const again = decodeMessage(bytes, 0, { decompress: false });
    sameExt(ext, again);
  }
}

export function fuzzBatchDecode(input: Buffer): void {
  const first = decodeBatch(input);
  let bytes: Buffer;
  try {
    bytes = encodeBatch(first);
  } catch (e) {
    if (e instanceof ValidationError) return;
    throw e;
  }
  const again = decodeBatch(bytes, { checkTotalSize: true });
  if (again.length !== first.length)
    throw new Error(`batch re-decode gave ${again.length} of ${first.length} messages`);
  for (let i = 0; i < first.length; i++) {
    const a = first[i];
    const b = again[i];
    if (a === undefined || b === undefined) throw new Error('batch message missing');
    sameMessage(a, b, `batch[${i}]`);
  }
}

function sameMessage(a: Message, b: Message, where: string): void {
  if (a.topic !== b.topic) throw new Error(`${where}: topic ${a.topic} != ${b.topic}`);
  if (a.flag !== b.flag) throw new Error(`${where}: flag ${a.flag} != ${b.flag}`);
  if (!a.body.equals(b.body)) throw new Error(`${where}: body differs`);
  if (a.properties.size !== b.properties.size) throw new Error(`${where}: property count differs`);
  for (const [k, v] of a.properties) {
    if (b.properties.get(k) !== v) throw new Error(`${where}: property ${JSON.stringify(k)} differs`);
  }
}

function sameExt(a: MessageExt, b: MessageExt): void {
  const where = `record ${a.offsetMsgId}`;
  sameMessage(a, b, where);
  const pairs: [string, unknown, unknown][] = [
    ['queueId', a.queueId, b.queueId],
    ['queueOffset', a.queueOffset, b.queueOffset],
    ['sysFlag', a.sysFlag, b.sysFlag],
    ['bornTimestamp', a.bornTimestamp, b.bornTimestamp],
    ['bornHost', `${a.bornHost.address}/${a.bornHost.port}`, `${b.bornHost.address}/${b.bornHost.port}`],
    ['storeTimestamp', a.storeTimestamp, b.storeTimestamp],
    ['storeHost', `${a.storeHost.address}/${a.storeHost.port}`, `${b.storeHost.address}/${b.storeHost.port}`],
    ['offsetMsgId', a.offsetMsgId, b.offsetMsgId],
    ['commitLogOffset', a.commitLogOffset, b.commitLogOffset],
    ['bodyCRC', a.bodyCRC, b.bodyCRC],
    ['reconsumeTimes', a.reconsumeTimes, b.reconsumeTimes],
    ['preparedTransactionOffset', a.preparedTransactionOffset, b.preparedTransactionOffset],
  ];
  for (const [name, x, y] of pairs) {
    if (x !== y) throw new Error(`${where}: ${name} ${String(x)} != ${String(y)} after re-encode`);
  }
}
