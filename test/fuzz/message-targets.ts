/**
 * Fuzz targets for the stored/pulled message format (the client's decoder and the store's recovery
 * reader, checked against each other) and the batch format (the client's decoder and the store's
 * batch preparation, checked against each other through the records the store would write).
 */
import { RocketMQError } from '../../src/common/errors.js';
import { fuzzBatchDecode, fuzzMessageDecode } from '../../src/common/message/fuzz-targets.js';
import {
  BLANK_MAGIC_CODE,
  decodeBatch,
  decodeMessage,
  encodeBatch,
  encodeMessage,
  Message,
  MessageExt,
} from '../../src/common/message/index.js';
import { DelayLevelTable } from '../../src/store/delay-level.js';
import { encodeBatch as encodeStoredBatch, prepareBatch } from '../../src/store/prepared-batch.js';
import { checkMessageAndReturnSize, RecordKind } from '../../src/store/stored-record-reader.js';
import { isRefusal, WriteBuffer } from '../../src/store/stored-record-writer.js';
import type { FuzzTarget } from './engine.js';
import { goldenSeeds } from './golden-seeds.js';

const isTyped = (err: unknown): boolean => err instanceof RocketMQError;

function sample(
  topic: string,
  body: string,
  v6: boolean,
  commitLogOffset = 9_007_199_254_740_993n,
): MessageExt {
  const ext = new MessageExt(topic, Buffer.from(body), { tags: 'TagA', keys: ['k1', 'k2'] });
  ext.putUserProperty('color', 'blue');
  ext.queueOffset = 42n;
  ext.commitLogOffset = commitLogOffset;
  ext.bornHost = v6 ? { address: '::1', port: 5000 } : { address: '10.0.0.5', port: 5000 };
  ext.storeHost = { address: '127.0.0.1', port: 10911 };
  if (v6) ext.sysFlag |= 0x10;
  return ext;
}

const records = [
  sample('TopicTest', 'hello', false),
  sample('T', '', true),
  sample('%RETRY%g', 'x'.repeat(40), false),
].map((m) => encodeMessage(m));

/**
 * A piece of commit log as recovery reads it: records whose PHYSICALOFFSET is their position, with
 * correct body CRCs, and a BLANK record filling the rest of the "file".
 */
function logSegment(topics: string[], blank: number): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (const [i, topic] of topics.entries()) {
    const ext = sample(topic, `body-${i}`.repeat(i + 1), i % 2 === 1, BigInt(at));
    const bytes = encodeMessage(ext);
    parts.push(bytes);
    at += bytes.length;
  }
  if (blank >= 8) {
    const tail = Buffer.alloc(blank);
    tail.writeInt32BE(blank, 0);
    tail.writeInt32BE(BLANK_MAGIC_CODE, 4);
    parts.push(tail);
  }
  return Buffer.concat(parts);
}

const delayLevels = new DelayLevelTable();
const strict = { checkCRC: true, buildRequest: true, delayLevels };
const lenient = { checkCRC: false, buildRequest: true, delayLevels };

/**
 * Walks `input` as recovery walks a commit-log file. Every record the reader takes for a message must
 * decode with the client's decoder to the same size, topic, queue and offsets: the two are written
 * apart and must not disagree on where a record ends. The lenient walk takes each record's own
 * PHYSICALOFFSET as its position and skips the CRC, so mutated records from the pull-body seeds get
 * past those two checks to the field checks behind them.
 */
function scanAsRecovery(input: Buffer, checkCRC: boolean): void {
  let pos = 0;
  while (pos < input.length) {
    let physicalOffset = pos;
    if (!checkCRC) {
      if (input.length - pos < 36) return;
      const stored = input.readBigInt64BE(pos + 28);
      if (stored < 0n || stored > BigInt(Number.MAX_SAFE_INTEGER)) return;
      physicalOffset = Number(stored);
    }
    const left = input.length - pos;
    const r = checkMessageAndReturnSize(input, pos, left, physicalOffset, left, checkCRC ? strict : lenient);
    if (r.kind !== RecordKind.MESSAGE) return;
    const ext = decodeMessage(input, pos, { decompress: false, checkCRC });
    const request = r.request;
    if (
      ext.storeSize !== r.size ||
      ext.topic !== r.topic ||
      ext.queueId !== r.queueId ||
      // The reader keeps QUEUEOFFSET as a double: past 2^53 (garbage in a real log) it is inexact.
      (Number.isSafeInteger(r.queueOffset) && ext.queueOffset !== BigInt(r.queueOffset)) ||
      request === undefined ||
      request.commitLogOffset !== BigInt(physicalOffset)
    ) {
      throw new Error(`recovery reader and decoder disagree on the record at ${pos}`);
    }
    pos += r.size;
  }
}

export const messageTarget: FuzzTarget = {
  id: 'records',
  name: 'stored record decoder + recovery reader',
  seeds: [
    ...records,
    Buffer.concat(records),
    logSegment(['TopicTest', 'T', '%RETRY%g'], 64),
    logSegment(['A'], 0),
    ...goldenSeeds('messages/', '.bin').filter((b) => b.length < 4096),
  ],
  run: (input) => {
    let rejected: unknown;
    try {
      fuzzMessageDecode(input);
    } catch (e) {
      if (!isTyped(e)) throw e;
      rejected = e;
    }
    scanAsRecovery(input, true);
    scanAsRecovery(input, false);
    if (rejected !== undefined) throw rejected;
  },
  isExpected: isTyped,
};

const limits = { maxMessageSize: 4 * 1024 * 1024, mappedFileSize: 1 << 30, delayLevels };
const host = { address: '127.0.0.1', port: 10911 };

/**
 * What the broker makes of a batch body: the prepared batch must hold the messages the client's
 * decoder sees, and the records it writes must decode to the same bodies, flags and properties.
 */
function storeAgrees(input: Buffer): void {
  const prepared = prepareBatch(
    {
      topic: 'T',
      queueId: 0,
      body: input,
      propertiesString: '',
      sysFlag: 0,
      bornTimestamp: 1_700_000_000_000n,
      bornHost: host,
      storeHost: host,
      reconsumeTimes: 0,
    },
    limits,
  );
  if (isRefusal(prepared)) return;
  const client = decodeBatch(input);
  if (client.length !== prepared.count)
    throw new Error(`store prepared ${prepared.count} messages, the decoder found ${client.length}`);
  const out = new WriteBuffer(prepared.size);
  const end = encodeStoredBatch(out, 0, prepared, 0, 0, 1_700_000_000_001);
  if (end !== prepared.size) throw new Error(`batch wrote ${end} of ${prepared.size} bytes`);
  let pos = 0;
  for (const [i, m] of client.entries()) {
    const stored = decodeMessage(out.bytes, pos, { decompress: false, checkCRC: true });
    if (!stored.body.equals(m.body) || stored.flag !== m.flag || stored.properties.size !== m.properties.size)
      throw new Error(`stored batch message ${i} differs from the decoded one`);
    for (const [k, v] of m.properties)
      if (stored.properties.get(k) !== v) throw new Error(`stored batch message ${i}: property ${k} differs`);
    pos += stored.storeSize;
  }
}

export const batchTarget: FuzzTarget = {
  id: 'batch',
  name: 'batch decoder + store batch preparation',
  seeds: [
    encodeBatch([
      new Message('T', Buffer.from('a'), { tags: 'x' }),
      new Message('T', Buffer.from('bb'), { keys: 'k' }),
    ]),
    encodeBatch([new Message('T', Buffer.alloc(0))]),
    ...goldenSeeds('messages/', 'batch-3.bin'),
  ],
  run: (input) => {
    storeAgrees(input);
    fuzzBatchDecode(input);
  },
  isExpected: isTyped,
};

export const messageTargets: FuzzTarget[] = [messageTarget, batchTarget];
