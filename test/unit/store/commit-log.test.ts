import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { messageBodyCrc } from '../../../src/common/message/crc32.js';
import { Message, MessageExt } from '../../../src/common/message/message.js';
import { createOffsetMsgId, decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { string2messageProperties } from '../../../src/common/message/properties.js';
import { decodeMessage, encodeMessage } from '../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { CommitLog, type MessageExtBatch } from '../../../src/store/commit-log.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { offset2FileName } from '../../../src/store/mapped-file.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { RecordKind } from '../../../src/store/stored-record-reader.js';
import {
  BORN_HOST,
  type InnerInit,
  inner,
  ioError,
  properties,
  STORE_HOST,
  smallConfig,
  TestIO,
  tempStoreDir,
} from './commit-log-support.js';

const T0 = 1_700_000_000_000;

interface Opened {
  cl: CommitLog;
  clock: ManualClock;
  io: TestIO;
  root: string;
  logs: LogRecord[];
  dispatched: DispatchRequest[];
  done: () => Promise<void>;
}

function open(overrides: Partial<MessageStoreConfig> = {}, maxPendingBytes?: number): Opened {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(T0);
  const io = new TestIO();
  const logs: LogRecord[] = [];
  const cl = new CommitLog(smallConfig(root, overrides), {
    clock,
    io,
    logger: createLogger('test', { level: 'debug', sink: (r) => logs.push(r) }),
    ...(maxPendingBytes === undefined ? {} : { maxPendingBytes }),
  });
  const dispatched: DispatchRequest[] = [];
  cl.addDispatcher({ dispatch: (r) => dispatched.push(r) });
  cl.recoverNormally();
  return {
    cl,
    clock,
    io,
    root,
    logs,
    dispatched,
    done: async () => {
      await cl.shutdown();
      cleanup();
    },
  };
}

/** 91 + body + topic + properties for IPv4 hosts (the V1 stored format). */
function recordSize(init: InnerInit): number {
  const m = inner(init);
  return 91 + m.body.length + Buffer.byteLength(m.topic) + Buffer.byteLength(m.propertiesString);
}

test('a message is stored in the official record format with store-side fields filled', async () => {
  const { cl, done } = open();
  try {
    const body = Buffer.from('hello, stored world');
    const msg = inner({ body, queueId: 3, flag: 7, reconsumeTimes: 2, props: { TAGS: 'TagA', KEYS: 'k1' } });
    const r = await cl.putMessage(msg);
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    assert.ok(r.isOk());
    const a = r.appendMessageResult!;
    const size = 91 + body.length + 9 + msg.propertiesString.length;
    assert.equal(a.wroteBytes, size);
    assert.equal(a.wroteOffset, 0n);
    assert.equal(a.logicsOffset, 0n);
    assert.equal(a.storeTimestamp, BigInt(T0));
    assert.equal(a.msgNum, 1);
    const rec = cl.getMessage(0, size)!;
    // Annotated layout (IPv4 born and store hosts).
    assert.equal(rec.readInt32BE(0), size, 'TOTALSIZE');
    assert.equal(rec.readUInt32BE(4), 0xdaa320a7, 'MAGICCODE');
    assert.equal(rec.readInt32BE(8), messageBodyCrc(body), 'BODYCRC');
    assert.equal(rec.readInt32BE(12), 3, 'QUEUEID');
    assert.equal(rec.readInt32BE(16), 7, 'FLAG');
    assert.equal(rec.readBigInt64BE(20), 0n, 'QUEUEOFFSET');
    assert.equal(rec.readBigInt64BE(28), 0n, 'PHYSICALOFFSET');
    assert.equal(rec.readInt32BE(36), 0, 'SYSFLAG');
    assert.equal(rec.readBigInt64BE(40), 1_700_000_000_123n, 'BORNTIMESTAMP');
    assert.deepEqual([...rec.subarray(48, 52)], [192, 168, 0, 7], 'BORNHOST ip');
    assert.equal(rec.readInt32BE(52), 54321, 'BORNHOST port');
    assert.equal(rec.readBigInt64BE(56), BigInt(T0), 'STORETIMESTAMP');
    assert.deepEqual([...rec.subarray(64, 68)], [10, 1, 2, 3], 'STOREHOST ip');
    assert.equal(rec.readInt32BE(68), 10911, 'STOREHOST port');
    assert.equal(rec.readInt32BE(72), 2, 'RECONSUMETIMES');
    assert.equal(rec.readBigInt64BE(76), 0n, 'PREPARED TRANSACTION OFFSET');
    assert.equal(rec.readInt32BE(84), body.length, 'BODY length');
    assert.deepEqual(rec.subarray(88, 88 + body.length), body);
    assert.equal(rec[88 + body.length], 9, 'TOPIC length');
    assert.equal(rec.toString('utf8', 89 + body.length, 98 + body.length), 'TopicTest');
    assert.equal(rec.readInt16BE(98 + body.length), msg.propertiesString.length, 'PROPERTIES length');
    assert.equal(rec.toString('utf8', 100 + body.length), msg.propertiesString);

    // The same bytes as the reference encoder of the message codec.
    const ext = new MessageExt();
    Object.assign(ext, {
      topic: 'TopicTest',
      queueId: 3,
      flag: 7,
      body,
      bodyCRC: messageBodyCrc(body),
      queueOffset: 0n,
      commitLogOffset: 0n,
      sysFlag: 0,
      bornTimestamp: 1_700_000_000_123n,
      bornHost: BORN_HOST,
      storeTimestamp: BigInt(T0),
      storeHost: STORE_HOST,
      reconsumeTimes: 2,
      preparedTransactionOffset: 0n,
      properties: string2messageProperties(msg.propertiesString),
    });
    assert.deepEqual(rec, encodeMessage(ext));
    assert.equal(a.msgId, createOffsetMsgId(STORE_HOST, 0n));
    assert.deepEqual(decodeOffsetMsgId(a.msgId), { address: STORE_HOST, offset: 0n });
  } finally {
    await done();
  }
});

test('non-ASCII topics and properties are stored as UTF-8', async () => {
  const { cl, done } = open();
  try {
    const props = { TAGS: 'étiquette', KEYS: '键 🔑' };
    const r = await cl.putMessage(inner({ topic: 'Tópico', props }));
    const a = r.appendMessageResult!;
    assert.equal(a.wroteBytes, recordSize({ topic: 'Tópico', props }));
    const m = decodeMessage(cl.getMessage(0, a.wroteBytes)!, 0, { checkCRC: true });
    assert.equal(m.topic, 'Tópico');
    assert.equal(m.properties.get('TAGS'), 'étiquette');
    assert.equal(m.properties.get('KEYS'), '键 🔑');
  } finally {
    await done();
  }
});

test('queue offsets count per topic and queue; prepared and rolled-back parts take 0', async () => {
  const { cl, done } = open();
  try {
    const put = async (init: InnerInit) => (await cl.putMessage(inner(init))).appendMessageResult!;
    assert.equal((await put({ queueId: 0 })).logicsOffset, 0n);
    assert.equal((await put({ queueId: 0 })).logicsOffset, 1n);
    assert.equal((await put({ queueId: 1 })).logicsOffset, 0n);
    assert.equal((await put({ topic: 'Other', queueId: 0 })).logicsOffset, 0n);
    const prepared = await put({ queueId: 0, sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE });
    assert.equal(prepared.logicsOffset, 0n);
    assert.equal(cl.getMessage(Number(prepared.wroteOffset), prepared.wroteBytes)!.readBigInt64BE(20), 0n);
    assert.equal(
      (await put({ queueId: 0, sysFlag: MessageSysFlag.TRANSACTION_ROLLBACK_TYPE })).logicsOffset,
      0n,
    );
    assert.equal(
      (await put({ queueId: 0, sysFlag: MessageSysFlag.TRANSACTION_COMMIT_TYPE })).logicsOffset,
      2n,
    );
    assert.equal(cl.getTopicQueueOffset('TopicTest', 0), 3);
    cl.setTopicQueueOffset('TopicTest', 0, 100n);
    assert.equal((await put({ queueId: 0 })).logicsOffset, 100n);
    assert.deepEqual(
      cl.getTopicQueueTable(),
      new Map([
        ['TopicTest-0', 101],
        ['TopicTest-1', 1],
        ['Other-0', 1],
      ]),
    );
    cl.setTopicQueueTable(new Map([['my-topic-7', 5n]]));
    assert.equal(cl.getTopicQueueOffset('my-topic', 7), 5);
    assert.equal(cl.getTopicQueueOffset('TopicTest', 0), 0);
    cl.removeQueueFromTopicQueueTable('my-topic', 7);
    assert.equal(cl.getTopicQueueTable().size, 0);
  } finally {
    await done();
  }
});

test('IPv6 hosts set the host flags and widen the record', async () => {
  const { cl, done } = open();
  try {
    const storeHost = { address: 'fe80::1', port: 10911 };
    const msg = inner({
      bornHost: { address: '2001:db8::7', port: 1 },
      storeHost,
      sysFlag: MessageSysFlag.STOREHOSTADDRESS_V6_FLAG,
    });
    const r = await cl.putMessage(msg);
    const a = r.appendMessageResult!;
    assert.equal(a.wroteBytes, recordSize({}) + 24);
    const m = decodeMessage(cl.getMessage(0, a.wroteBytes)!, 0, { checkCRC: true });
    assert.equal(m.sysFlag, MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
    assert.deepEqual(m.storeHost, storeHost);
    assert.equal(a.msgId, createOffsetMsgId(storeHost, 0n));
    // An IPv6 flag without an IPv6 host is cleared rather than written as a broken record.
    const r2 = await cl.putMessage(inner({ sysFlag: MessageSysFlag.BORNHOST_V6_FLAG }));
    assert.equal(r2.appendMessageResult!.wroteBytes, recordSize({}));
  } finally {
    await done();
  }
});

test('a record that does not fit leaves a BLANK to the file end and goes to the next file', async () => {
  const { cl, root, done } = open({ mappedFileSizeCommitLog: 4096 });
  try {
    const first = recordSize({ body: 'x'.repeat(1000) });
    await cl.putMessage(inner({ body: 'x'.repeat(1000) }));
    const remaining = 4096 - first;
    // Needs remaining + 1 bytes (record + 8): a BLANK of `remaining` bytes, then the next file.
    const bodyB = remaining + 1 - 8 - recordSize({ body: '' });
    const b = await cl.putMessage(inner({ body: 'b'.repeat(bodyB) }));
    assert.equal(b.appendMessageResult!.wroteOffset, 4096n);
    const file0 = fs.readFileSync(join(root, 'commitlog', offset2FileName(0)));
    assert.equal(file0.readInt32BE(first), remaining, 'BLANK TOTALSIZE is the rest of the file');
    assert.equal(file0.readUInt32BE(first + 4), 0xcbd43194, 'BLANK MAGICCODE');
    assert.ok(
      file0.subarray(first + 8).every((x) => x === 0),
      'only the 8 header bytes are written',
    );
    // As upstream, a full file reads whole, BLANK included (replication ships it).
    assert.equal(cl.getData(first, 100)?.readUInt32BE(4), 0xcbd43194);

    // Fits exactly, leaving 8 bytes; the next record then leaves an 8-byte BLANK at the very end.
    const second = b.appendMessageResult!.wroteBytes;
    const rest = 4096 - second;
    const exact = await cl.putMessage(inner({ body: 'e'.repeat(rest - 8 - recordSize({ body: '' })) }));
    assert.equal(exact.appendMessageResult!.wroteOffset, BigInt(4096 + second));
    assert.equal(
      Number(exact.appendMessageResult!.wroteOffset) + exact.appendMessageResult!.wroteBytes,
      2 * 4096 - 8,
    );
    const c = await cl.putMessage(inner({ body: 'c' }));
    assert.equal(c.appendMessageResult!.wroteOffset, 8192n);
    const file1 = fs.readFileSync(join(root, 'commitlog', offset2FileName(4096)));
    assert.equal(file1.readInt32BE(4096 - 8), 8);
    assert.equal(file1.readUInt32BE(4096 - 4), 0xcbd43194);
    assert.deepEqual(fs.readdirSync(join(root, 'commitlog')).sort(), [0, 4096, 8192].map(offset2FileName));
    assert.equal(cl.getMaxOffset(), 8192 + c.appendMessageResult!.wroteBytes);
    assert.equal(cl.rollNextFile(4097), 8192);
    // Records read back across the files.
    const all: DispatchRequest[] = [];
    cl.forEachRecord(0, (r) => all.push(r));
    assert.deepEqual(
      all.map((r) => r.commitLogOffset),
      [0n, 4096n, BigInt(4096 + second), 8192n],
    );
  } finally {
    await done();
  }
});

function batchOf(
  messages: Message[],
  batchProps: Record<string, string>,
  init: Partial<MessageExtBatch> = {},
): MessageExtBatch {
  return {
    topic: 'BatchTopic',
    queueId: 1,
    body: encodeBatch(messages),
    propertiesString: properties(batchProps),
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_555n,
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
    ...init,
  };
}

function message(body: string, props: Record<string, string>, flag = 0): Message {
  const m = new Message();
  m.body = Buffer.from(body);
  m.flag = flag;
  for (const [k, v] of Object.entries(props)) m.properties.set(k, v);
  return m;
}

test('a batch is stored as consecutive records with consecutive queue offsets', async () => {
  const { cl, dispatched, done } = open();
  try {
    await cl.putMessage(inner({ topic: 'BatchTopic', queueId: 1 }));
    const start = cl.getMaxOffset();
    const batch = batchOf(
      [
        message('one', { TAGS: 'a', UNIQ_KEY: 'U1' }, 1),
        message('two', {}, 2),
        message('three', { KEYS: 'k3' }, 3),
      ],
      { CLUSTER: 'DefaultCluster' },
    );
    const r = await cl.putMessages(batch);
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    const a = r.appendMessageResult!;
    assert.equal(a.msgNum, 3);
    assert.equal(a.wroteOffset, BigInt(start));
    assert.equal(a.logicsOffset, 1n);
    const bytes = cl.getMessage(start, a.wroteBytes)!;
    const records: MessageExt[] = [];
    for (let p = 0; p < bytes.length; ) {
      const m = decodeMessage(bytes, p, { checkCRC: true });
      records.push(m);
      p += m.storeSize;
    }
    assert.deepEqual(
      records.map((m) => [m.body.toString(), m.flag, m.queueId, m.queueOffset, m.storeTimestamp]),
      [
        ['one', 1, 1, 1n, BigInt(T0)],
        ['two', 2, 1, 2n, BigInt(T0)],
        ['three', 3, 1, 3n, BigInt(T0)],
      ],
    );
    assert.deepEqual(
      records.map((m) => m.commitLogOffset),
      [
        BigInt(start),
        BigInt(start + records[0]!.storeSize),
        BigInt(start + records[0]!.storeSize + records[1]!.storeSize),
      ],
    );
    // Own properties, a separator, then the batch's.
    assert.equal(
      dispatched.at(-3)?.propertiesString,
      'TAGS\u0001a\u0002UNIQ_KEY\u0001U1\u0002CLUSTER\u0001DefaultCluster',
    );
    assert.equal(
      dispatched.at(-2)?.propertiesString,
      'CLUSTER\u0001DefaultCluster',
      'no own properties: no separator',
    );
    assert.equal(dispatched.at(-3)?.tagsCode, tagsString2tagsCode('a'));
    assert.equal(dispatched.at(-3)?.uniqKey, 'U1');
    assert.equal(dispatched.at(-1)?.keys, 'k3');
    assert.deepEqual(
      records.map((m) => m.properties.get('CLUSTER')),
      ['DefaultCluster', 'DefaultCluster', 'DefaultCluster'],
    );
    assert.equal(a.msgId, records.map((m) => createOffsetMsgId(STORE_HOST, m.commitLogOffset)).join(','));
    assert.equal(cl.getTopicQueueOffset('BatchTopic', 1), 4);
  } finally {
    await done();
  }
});

test('a batch that does not fit the rest of the file goes whole to the next file', async () => {
  const { cl, done } = open({ mappedFileSizeCommitLog: 4096 });
  try {
    await cl.putMessage(inner({ body: 'x'.repeat(3000) }));
    const batch = batchOf(
      Array.from({ length: 4 }, (_, i) => message('y'.repeat(200), { TAGS: `t${i}` })),
      {},
    );
    const r = await cl.putMessages(batch);
    assert.equal(r.appendMessageResult!.wroteOffset, 4096n);
    const seen: bigint[] = [];
    cl.forEachRecord(4096, (req) => seen.push(req.consumeQueueOffset));
    assert.deepEqual(seen, [0n, 1n, 2n, 3n]);
  } finally {
    await done();
  }
});

test('size and content checks refuse a message before anything is written', async () => {
  const { cl, done } = open({ mappedFileSizeCommitLog: 32 * 1024, maxMessageSize: 16 * 1024 });
  try {
    await cl.putMessage(inner());
    const max = cl.getMaxOffset();
    const cases: Array<[string, InnerInit, PutMessageStatus]> = [
      ['body above maxMessageSize', { body: Buffer.alloc(16 * 1024 + 1) }, PutMessageStatus.MESSAGE_ILLEGAL],
      ['topic of 128 bytes', { topic: 'T'.repeat(128) }, PutMessageStatus.MESSAGE_ILLEGAL],
      ['topic of 64 two-byte characters', { topic: 'é'.repeat(64) }, PutMessageStatus.MESSAGE_ILLEGAL],
      ['empty topic', { topic: '' }, PutMessageStatus.MESSAGE_ILLEGAL],
      [
        'properties of 32768 characters',
        { propertiesString: `A\u0001${'v'.repeat(32766)}` },
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
      [
        'properties of 40000 bytes',
        { propertiesString: `A\u0001${'é'.repeat(20000)}` },
        PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      ],
      ['properties ending in NUL', { propertiesString: 'A\u0001b\u0000' }, PutMessageStatus.MESSAGE_ILLEGAL],
      ['DELAY that is not an int', { props: { DELAY: 'soon' } }, PutMessageStatus.MESSAGE_ILLEGAL],
      [
        'born host that is not an IP',
        { bornHost: { address: 'broker-a', port: 1 } },
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
      [
        'store host port out of range',
        { storeHost: { address: '10.0.0.1', port: 70000 } },
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
    ];
    for (const [name, init, status] of cases) {
      const r = await cl.putMessage(inner(init));
      assert.equal(r.putMessageStatus, status, name);
      assert.equal(r.appendMessageResult, undefined, name);
      assert.equal(r.isOk(), false, name);
    }
    assert.equal(
      (await cl.putMessage(inner({ topic: 'T'.repeat(127) }))).putMessageStatus,
      PutMessageStatus.PUT_OK,
    );
    assert.equal(cl.getMaxOffset(), max + recordSize({ topic: 'T'.repeat(127) }));
    // A record bigger than a file can never be stored.
    const small = open({ mappedFileSizeCommitLog: 4096, maxMessageSize: 16 * 1024 });
    try {
      const r = await small.cl.putMessage(inner({ body: Buffer.alloc(4096) }));
      assert.equal(r.putMessageStatus, PutMessageStatus.MESSAGE_ILLEGAL);
    } finally {
      await small.done();
    }
  } finally {
    await done();
  }
});

test('batch checks: transactions, delays, malformed or oversized bodies', async () => {
  const { cl, done } = open({ maxMessageSize: 4096 });
  try {
    const ok = [message('a', {})];
    const cases: Array<[string, MessageExtBatch, PutMessageStatus]> = [
      [
        'transactional',
        batchOf(ok, {}, { sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE }),
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
      ['delay level', batchOf(ok, { DELAY: '2' }), PutMessageStatus.MESSAGE_ILLEGAL],
      ['empty', batchOf([], {}), PutMessageStatus.MESSAGE_ILLEGAL],
      [
        'truncated entry',
        batchOf(ok, {}, { body: encodeBatch(ok).subarray(0, 10) }),
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
      [
        'body above maxMessageSize',
        batchOf([message('z'.repeat(4100), {})], {}),
        PutMessageStatus.MESSAGE_ILLEGAL,
      ],
      ['topic of 128 bytes', batchOf(ok, {}, { topic: 'B'.repeat(128) }), PutMessageStatus.MESSAGE_ILLEGAL],
      [
        'stored properties above 32767 bytes',
        batchOf([message('a', { A: 'x'.repeat(20000) })], { B: 'y'.repeat(13000) }),
        PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      ],
    ];
    const bigBatch = open({ maxMessageSize: 64 * 1024 });
    try {
      const r = await bigBatch.cl.putMessages(cases[6]![1]);
      assert.equal(r.putMessageStatus, PutMessageStatus.PROPERTIES_SIZE_EXCEEDED);
    } finally {
      await bigBatch.done();
    }
    for (const [name, batch, status] of cases.slice(0, 6)) {
      assert.equal((await cl.putMessages(batch)).putMessageStatus, status, name);
    }
    assert.equal(cl.getMaxOffset(), 0);
  } finally {
    await done();
  }
});

test('a delay level rewrites the message to SCHEDULE_TOPIC_XXXX with its delivery time as tag code', async () => {
  const { cl, clock, dispatched, done } = open();
  try {
    clock.advance(5);
    const r = await cl.putMessage(inner({ topic: 'Orders', queueId: 5, props: { TAGS: 'x', DELAY: '3' } }));
    const m = decodeMessage(cl.getMessage(0, r.appendMessageResult!.wroteBytes)!, 0);
    assert.equal(m.topic, 'SCHEDULE_TOPIC_XXXX');
    assert.equal(m.queueId, 2);
    assert.equal(m.properties.get('REAL_TOPIC'), 'Orders');
    assert.equal(m.properties.get('REAL_QID'), '5');
    assert.equal(m.properties.get('DELAY'), '3');
    assert.equal(dispatched[0]?.tagsCode, BigInt(T0 + 5 + 10_000), 'level 3 = 10 s');
    assert.equal(dispatched[0]?.topic, 'SCHEDULE_TOPIC_XXXX');

    const high = await cl.putMessage(inner({ topic: 'Orders', props: { DELAY: '99' } }));
    const h = decodeMessage(
      cl.getMessage(Number(high.appendMessageResult!.wroteOffset), high.appendMessageResult!.wroteBytes)!,
      0,
    );
    assert.equal(h.queueId, 17, 'clamped to the highest level, 18');
    assert.equal(h.properties.get('DELAY'), '18');
    assert.equal(dispatched[1]?.tagsCode, BigInt(T0 + 5 + 7_200_000));

    const zero = await cl.putMessage(inner({ topic: 'Orders', props: { DELAY: '0' } }));
    assert.equal(dispatched[2]?.topic, 'Orders');
    assert.equal(zero.appendMessageResult!.logicsOffset, 0n);
    await cl.putMessage(
      inner({ topic: 'Orders', props: { DELAY: '2' }, sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE }),
    );
    assert.equal(dispatched[3]?.topic, 'Orders', 'a half message is not delayed');
  } finally {
    await done();
  }
});

test('what an append dispatches equals what parsing the stored bytes yields', async () => {
  const { cl, dispatched, done } = open({ mappedFileSizeCommitLog: 8192 });
  try {
    const puts = [
      cl.putMessage(inner({ props: { TAGS: 'A', KEYS: 'k1 k2', UNIQ_KEY: 'U' } })),
      cl.putMessage(inner({ queueId: 3, props: {} })),
      cl.putMessage(inner({ topic: 'Orders', props: { DELAY: '1', TAGS: 'T' } })),
      cl.putMessage(
        inner({ sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE, preparedTransactionOffset: 0n }),
      ),
      cl.putMessage(
        inner({ sysFlag: MessageSysFlag.TRANSACTION_COMMIT_TYPE, preparedTransactionOffset: 77n }),
      ),
      cl.putMessage(inner({ bornHost: { address: '::1', port: 9 }, body: 'x'.repeat(3000) })),
      cl.putMessages(
        batchOf([message('b1', { TAGS: 'q' }), message('b2', { KEYS: 'bk' })], { CLUSTER: 'c' }),
      ),
      cl.putMessage(inner({ body: 'y'.repeat(4000) })),
    ];
    const results = await Promise.all(puts);
    assert.ok(results.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    const parsed: DispatchRequest[] = [];
    assert.equal(
      cl.forEachRecord(0, (r) => parsed.push(r)),
      cl.getMaxOffset(),
    );
    const fields = (r: DispatchRequest) => ({
      topic: r.topic,
      queueId: r.queueId,
      commitLogOffset: r.commitLogOffset,
      msgSize: r.msgSize,
      tagsCode: r.tagsCode,
      storeTimestamp: r.storeTimestamp,
      consumeQueueOffset: r.consumeQueueOffset,
      keys: r.keys,
      uniqKey: r.uniqKey,
      sysFlag: r.sysFlag,
      preparedTransactionOffset: r.preparedTransactionOffset,
      propertiesString: r.propertiesString,
    });
    assert.equal(dispatched.length, 9);
    assert.deepEqual(parsed.map(fields), dispatched.map(fields));
    for (const r of dispatched) {
      const bytes = cl.getMessage(Number(r.commitLogOffset), r.msgSize)!;
      const checked = cl.checkMessageAndReturnSize(
        bytes,
        0,
        Number(r.commitLogOffset),
        8192 - (Number(r.commitLogOffset) % 8192),
      );
      assert.equal(checked.kind, RecordKind.MESSAGE);
      assert.deepEqual(fields(checked.request!), fields(r));
    }
    assert.equal(dispatched[0]?.keys, 'k1 k2');
    assert.equal(dispatched[1]?.keys, '');
    assert.equal(dispatched[1]?.uniqKey, undefined);
    assert.equal(dispatched[4]?.preparedTransactionOffset, 77n);
  } finally {
    await done();
  }
});

test('reads return stored bytes within the written data only', async () => {
  const { cl, done } = open({ mappedFileSizeCommitLog: 4096 });
  try {
    assert.equal(cl.getMinOffset(), -1);
    assert.equal(cl.getMaxOffset(), 0);
    assert.equal(cl.getData(0, 10), undefined);
    const r1 = (await cl.putMessage(inner({ body: 'a'.repeat(100) }))).appendMessageResult!;
    const r2 = (await cl.putMessage(inner({ body: 'b'.repeat(100) }))).appendMessageResult!;
    assert.equal(cl.getMinOffset(), 0);
    assert.equal(cl.getMaxOffset(), r1.wroteBytes + r2.wroteBytes);
    assert.equal(
      cl.getData(0, 1 << 20)?.length,
      r1.wroteBytes + r2.wroteBytes,
      'bounded by the written data',
    );
    assert.equal(cl.getData(r1.wroteBytes, 10)?.readInt32BE(0), r2.wroteBytes);
    assert.equal(cl.getMessage(r1.wroteBytes, r2.wroteBytes + 1), undefined);
    assert.equal(cl.getMessage(cl.getMaxOffset(), 1), undefined);
    assert.equal(cl.getMessage(1 << 20, 1), undefined);
    assert.equal(cl.pickupStoreTimestamp(r1.wroteBytes, r2.wroteBytes), T0);
    assert.equal(cl.pickupStoreTimestamp(99_999, 100), -1);
    assert.equal(cl.getFlushedWhere(), 0);
    assert.equal(await cl.flush(), cl.getMaxOffset());
  } finally {
    await done();
  }
});

test('appends of one event-loop turn share one write; later turns get their own', async () => {
  const { cl, io, done } = open({ mappedFileSizeCommitLog: 1024 * 1024 });
  try {
    const before = io.writes;
    const first = await Promise.all(
      Array.from({ length: 100 }, (_, i) => cl.putMessage(inner({ body: `m${i}` }))),
    );
    assert.equal(io.writes - before, 1);
    assert.deepEqual(
      first.map((r) => r.appendMessageResult!.logicsOffset),
      Array.from({ length: 100 }, (_, i) => BigInt(i)),
    );
    await cl.putMessage(inner());
    await cl.putMessage(inner());
    assert.equal(io.writes - before, 3);
  } finally {
    await done();
  }
});

test('appends are refused before recovery, after shutdown, and when too much is queued', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const cl = new CommitLog(smallConfig(root));
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    cl.recoverNormally();
    assert.ok(cl.isWritable());
    await cl.shutdown();
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
  } finally {
    cleanup();
  }
  const size = recordSize({});
  const { cl, done } = open({}, 2 * size);
  try {
    const results = await Promise.all([
      cl.putMessage(inner()),
      cl.putMessage(inner()),
      cl.putMessage(inner()),
      cl.putMessage(inner()),
    ]);
    assert.deepEqual(
      results.map((r) => r.putMessageStatus),
      [
        PutMessageStatus.PUT_OK,
        PutMessageStatus.PUT_OK,
        PutMessageStatus.PUT_OK,
        PutMessageStatus.OS_PAGECACHE_BUSY,
      ],
    );
  } finally {
    await done();
  }
});

test('a segment file that cannot be created fails only the appends that needed it', async () => {
  const { cl, io, logs, done } = open({ mappedFileSizeCommitLog: 4096 });
  try {
    io.failNextCreate = ioError('ENOSPC', 'open');
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.CREATE_MAPEDFILE_FAILED);
    assert.ok(
      logs.some(
        (l) => /cannot create a commit log file/.test(l.msg) && /ENOSPC/.test(String(l.fields.error)),
      ),
    );
    assert.equal(
      (await cl.putMessage(inner())).putMessageStatus,
      PutMessageStatus.PUT_OK,
      'retried on the next append',
    );
    // At a roll: the records before it are written, the one needing the new file fails.
    await cl.putMessage(inner({ body: 'x'.repeat(3000) }));
    io.failNextCreate = ioError('ENOSPC', 'open');
    const results = await Promise.all([
      cl.putMessage(inner({ body: 'y'.repeat(200) })),
      cl.putMessage(inner({ body: 'z'.repeat(900) })),
    ]);
    assert.deepEqual(
      results.map((r) => r.putMessageStatus),
      [PutMessageStatus.PUT_OK, PutMessageStatus.CREATE_MAPEDFILE_FAILED],
    );
    const next = await cl.putMessage(inner({ body: 'z'.repeat(900) }));
    assert.equal(next.appendMessageResult?.wroteOffset, 4096n);
    assert.ok(cl.isWritable());
  } finally {
    await done();
  }
});

test('a failing dispatcher stops further appends and says why', async () => {
  const { cl, logs, done } = open();
  try {
    cl.addDispatcher({
      dispatch() {
        throw new Error('consume queue file is gone');
      },
    });
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.PUT_OK);
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    assert.match(cl.getWriteError()?.message ?? '', /consume queue file is gone/);
    assert.ok(logs.some((l) => l.level === 'error' && l.fields.error === 'consume queue file is gone'));
  } finally {
    await done();
  }
});
