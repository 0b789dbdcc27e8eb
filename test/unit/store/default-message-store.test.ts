import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { decodeMessage, decodeMessages } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { GetMessageStatus, type MessageFilter } from '../../../src/store/message-store.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { StoreIOError } from '../../../src/store/store-error.js';
import {
  BORN_HOST,
  msg,
  openStore,
  pullAll,
  put,
  quiet,
  removeTempDirs,
  STORE_HOST,
  storeConfig,
  tempDir,
  uniqKey,
} from './default-message-store-support.js';

after(removeTempDirs);

function tagFilter(tag: string): MessageFilter {
  const code = tagsString2tagsCode(tag);
  return {
    isMatchedByConsumeQueue: (tagsCode) => tagsCode === code,
    isMatchedByCommitLog: () => true,
  };
}

describe('DefaultMessageStore: put and get', () => {
  test('messages across many commit-log and consume-queue files read back in order, byte for byte', async () => {
    const root = tempDir();
    const store = await openStore(root);
    const sent: Array<{ queueId: number; body: string; offset: bigint; phy: bigint; size: number }> = [];
    for (let i = 0; i < 240; i++) {
      const queueId = i % 3;
      const body = `body-${i}-${'x'.repeat((i * 37) % 300)}`;
      const r = await put(store, msg(i, { queueId, body }));
      sent.push({ queueId, body, offset: r.logicsOffset, phy: r.wroteOffset, size: r.wroteBytes });
    }
    const files = fs.readdirSync(join(root, 'commitlog'));
    assert.ok(files.length >= 5, `expected several commit-log files, got ${files.length}`);
    assert.ok(fs.readdirSync(join(root, 'consumequeue', 'TopicTest', '0')).length >= 3);
    for (let q = 0; q < 3; q++) {
      const expected = sent.filter((s) => s.queueId === q);
      assert.deepEqual(
        expected.map((s) => s.offset),
        expected.map((_, i) => BigInt(i)),
      );
      for (const maxMsgNums of [1, 7, 32]) {
        const got = await pullAll(store, 'TopicTest', q, 0n, maxMsgNums);
        assert.deepEqual(
          got.map((m) => m.body.toString()),
          expected.map((s) => s.body),
        );
        assert.deepEqual(
          got.map((m) => m.queueOffset),
          expected.map((s) => s.offset),
        );
        assert.deepEqual(
          got.map((m) => m.commitLogOffset),
          expected.map((s) => s.phy),
        );
      }
      assert.equal(store.getMaxOffsetInQueue('TopicTest', q), BigInt(expected.length));
      assert.equal(store.getMinOffsetInQueue('TopicTest', q), 0n);
    }
    // Records are exactly the stored bytes.
    const first = sent[5];
    assert.ok(first !== undefined);
    const r = await store.getMessage('g', 'TopicTest', first.queueId, first.offset, 1);
    const record = store.selectOneMessageByOffset(first.phy);
    assert.ok(record !== undefined);
    assert.deepEqual(r.messages[0], record);
    assert.equal(record.length, first.size);
    assert.equal(r.bufferTotalSize, first.size);
    assert.deepEqual(r.messageQueueOffsets, [first.offset]);
    const onDisk = Buffer.alloc(first.size);
    const name = String(Math.floor(Number(first.phy) / 8192) * 8192).padStart(20, '0');
    const fd = fs.openSync(join(root, 'commitlog', name), 'r');
    fs.readSync(fd, onDisk, 0, first.size, Number(first.phy) % 8192);
    fs.closeSync(fd);
    assert.deepEqual(record, onDisk);
    await store.shutdown();
  });

  test('a batch takes consecutive queue offsets and each message reads back on its own', async () => {
    const store = await openStore(tempDir());
    await put(store, msg(0));
    const messages = [0, 1, 2, 3].map((k) => {
      const m = new Message('TopicTest', Buffer.from(`batch-${k}`), { keys: `bk-${k}` });
      m.putProperty('UNIQ_KEY', uniqKey(100 + k));
      return m;
    });
    const r = await store.putMessages({
      topic: 'TopicTest',
      queueId: 0,
      body: encodeBatch(messages),
      propertiesString: 'WAIT\u0001true',
      sysFlag: 0,
      bornTimestamp: 1_700_000_000_000n,
      bornHost: BORN_HOST,
      storeHost: STORE_HOST,
      reconsumeTimes: 0,
    });
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    assert.equal(r.appendMessageResult?.logicsOffset, 1n);
    assert.equal(r.appendMessageResult?.msgNum, 4);
    const got = await pullAll(store, 'TopicTest', 0);
    assert.deepEqual(
      got.map((m) => [m.queueOffset, m.body.toString()]),
      [
        [0n, 'body-0'],
        [1n, 'batch-0'],
        [2n, 'batch-1'],
        [3n, 'batch-2'],
        [4n, 'batch-3'],
      ],
    );
    const q = await store.queryMessage('TopicTest', 'bk-2', 32, 0n, BigInt(Date.now() * 2));
    assert.deepEqual(
      decodeMessages(Buffer.concat(q.messages)).map((m) => m.body.toString()),
      ['batch-2'],
    );
    await store.shutdown();
  });

  test('arriving listeners see each dispatched message in order, in the turn it was stored', async () => {
    const store = await openStore(tempDir());
    const seen: DispatchRequest[] = [];
    store.onMessageArrived((req) => seen.push(req));
    store.onMessageArrived(() => {
      throw new Error('a failing listener changes nothing');
    });
    const results = await Promise.all([0, 1, 2].map((i) => store.putMessage(msg(i, { queueId: i % 2 }))));
    assert.deepEqual(
      results.map((r) => r.putMessageStatus),
      ['PUT_OK', 'PUT_OK', 'PUT_OK'],
    );
    assert.deepEqual(
      seen.map((r) => [r.queueId, r.consumeQueueOffset]),
      [
        [0, 0n],
        [1, 0n],
        [0, 1n],
      ],
    );
    // The listener ran when the consume queue already had the entry.
    assert.equal(store.getMaxOffsetInQueue('TopicTest', 0), 2n);
    await store.shutdown();
  });
});

describe('DefaultMessageStore: getMessage statuses', () => {
  test('NO_MATCHED_LOGIC_QUEUE, NO_MESSAGE_IN_QUEUE, OFFSET_OVERFLOW_ONE/BADLY, FOUND', async () => {
    const store = await openStore(tempDir());
    for (let i = 0; i < 5; i++) await put(store, msg(i));

    let r = await store.getMessage('g', 'bad/topic', 0, 3n, 32);
    assert.equal(r.status, GetMessageStatus.NO_MATCHED_LOGIC_QUEUE);
    assert.equal(r.nextBeginOffset, 0n);
    r = await store.getMessage('g', 'TopicTest', -1, 3n, 32);
    assert.equal(r.status, GetMessageStatus.NO_MATCHED_LOGIC_QUEUE);

    r = await store.getMessage('g', 'OtherTopic', 0, 7n, 32);
    assert.equal(r.status, GetMessageStatus.NO_MESSAGE_IN_QUEUE);
    assert.deepEqual([r.nextBeginOffset, r.minOffset, r.maxOffset], [0n, 0n, 0n]);
    assert.equal(store.getConsumeQueue('OtherTopic', 0), undefined, 'a read creates no queue');

    r = await store.getMessage('g', 'TopicTest', 0, 5n, 32);
    assert.equal(r.status, GetMessageStatus.OFFSET_OVERFLOW_ONE);
    assert.deepEqual([r.nextBeginOffset, r.minOffset, r.maxOffset], [5n, 0n, 5n]);

    r = await store.getMessage('g', 'TopicTest', 0, 9n, 32);
    assert.equal(r.status, GetMessageStatus.OFFSET_OVERFLOW_BADLY);
    assert.equal(r.nextBeginOffset, 5n);

    r = await store.getMessage('g', 'TopicTest', 0, 2n, 32);
    assert.equal(r.status, GetMessageStatus.FOUND);
    assert.equal(r.messages.length, 3);
    assert.equal(r.nextBeginOffset, 5n);
    assert.deepEqual(r.messageQueueOffsets, [2n, 3n, 4n]);
    assert.equal(r.suggestPullingFromSlave, false);
    await store.shutdown();
  });

  test('a slave without offsetCheckInSlave keeps the requested offset', async () => {
    const root = tempDir();
    const master = await openStore(root);
    for (let i = 0; i < 3; i++) await put(master, msg(i));
    await master.shutdown();
    const slave = await openStore(root, {}, { brokerRole: 'SLAVE' });
    const r = await slave.getMessage('g', 'TopicTest', 0, 9n, 32);
    assert.equal(r.status, GetMessageStatus.OFFSET_OVERFLOW_BADLY);
    assert.equal(r.nextBeginOffset, 9n);
    const put1 = await slave.putMessage(msg(9));
    assert.equal(put1.putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    await slave.shutdown();
    const checking = await openStore(root, {}, { brokerRole: 'SLAVE', offsetCheckInSlave: true });
    assert.equal((await checking.getMessage('g', 'TopicTest', 0, 9n, 32)).nextBeginOffset, 3n);
    await checking.shutdown();
  });

  test('NO_MATCHED_MESSAGE: filtered entries are stepped over and counted in nextBeginOffset', async () => {
    const store = await openStore(tempDir());
    // Tags cycle A, B, C.
    for (let i = 0; i < 9; i++) await put(store, msg(i));
    let r = await store.getMessage('g', 'TopicTest', 0, 0n, 32, tagFilter('TagZ'));
    assert.equal(r.status, GetMessageStatus.NO_MATCHED_MESSAGE);
    assert.equal(r.nextBeginOffset, 9n);
    assert.equal(r.messages.length, 0);

    r = await store.getMessage('g', 'TopicTest', 0, 0n, 32, tagFilter('TagB'));
    assert.equal(r.status, GetMessageStatus.FOUND);
    assert.deepEqual(
      r.messages.map((m) => decodeMessage(m).properties.get('idx')),
      ['1', '4', '7'],
    );
    assert.deepEqual(r.messageQueueOffsets, [1n, 4n, 7n]);
    assert.equal(r.nextBeginOffset, 9n);

    // Two matches wanted: as upstream, the batch is full before the next entry is even filtered.
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 2, tagFilter('TagB'));
    assert.deepEqual(r.messageQueueOffsets, [1n, 4n]);
    assert.equal(r.nextBeginOffset, 5n);

    // The commit-log stage sees the stored record.
    const byIdx: MessageFilter = {
      isMatchedByConsumeQueue: () => true,
      isMatchedByCommitLog: (record) =>
        record !== undefined && decodeMessage(record).properties.get('idx') === '5',
    };
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 32, byIdx);
    assert.deepEqual(r.messageQueueOffsets, [5n]);
    r = await store.getMessage('g', 'TopicTest', 0, 6n, 32, byIdx);
    assert.equal(r.status, GetMessageStatus.NO_MATCHED_MESSAGE);
    assert.equal(r.nextBeginOffset, 9n);
    await store.shutdown();
  });

  test('MESSAGE_WAS_REMOVING when the commit-log file is gone before the queue minimum moved', async () => {
    const store = await openStore(tempDir());
    // Queue 0 first, then enough of queue 1 that the last commit-log file holds only queue 1.
    for (let i = 0; i < 30; i++) await put(store, msg(i, { body: 'y'.repeat(200) }));
    for (let i = 0; i < 40; i++) await put(store, msg(i, { queueId: 1, body: 'y'.repeat(200) }));
    const deleted = await store.commitLog.deleteExpiredFile(0, 0, 0, true);
    assert.ok(deleted >= 2);
    const r0 = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(r0.status, GetMessageStatus.MESSAGE_WAS_REMOVING);
    assert.equal(r0.messages.length, 0);
    assert.equal(r0.nextBeginOffset, 20n, 'the walk ends with the consume-queue file (20 entries)');
    const r0b = await store.getMessage('g', 'TopicTest', 0, 20n, 32);
    assert.equal(r0b.status, GetMessageStatus.MESSAGE_WAS_REMOVING);
    assert.equal(r0b.nextBeginOffset, 30n);
    let r1 = await store.getMessage('g', 'TopicTest', 1, 0n, 4);
    for (let hops = 0; r1.status !== GetMessageStatus.FOUND && hops < 3; hops++) {
      assert.equal(r1.status, GetMessageStatus.MESSAGE_WAS_REMOVING);
      r1 = await store.getMessage('g', 'TopicTest', 1, r1.nextBeginOffset, 4);
    }
    assert.equal(r1.status, GetMessageStatus.FOUND, 'records of the kept file are found behind removed ones');
    const firstKept = r1.messageQueueOffsets[0];
    assert.ok(firstKept !== undefined && firstKept > 0n);
    assert.deepEqual(
      r1.messageQueueOffsets,
      [0n, 1n, 2n, 3n].map((k) => firstKept + k),
    );
    // The retention round then corrects the minimums: OFFSET_TOO_SMALL, next offset at the minimum.
    await store.cleanFilesPeriodically();
    assert.equal(store.getMinOffsetInQueue('TopicTest', 1), firstKept);
    assert.equal(store.getMinOffsetInQueue('TopicTest', 0), 30n, 'nothing readable left in queue 0');
    const small = await store.getMessage('g', 'TopicTest', 1, 0n, 32);
    assert.equal(small.status, GetMessageStatus.OFFSET_TOO_SMALL);
    assert.equal(small.nextBeginOffset, firstKept);
    const small0 = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(small0.status, GetMessageStatus.OFFSET_TOO_SMALL);
    assert.equal(small0.nextBeginOffset, 30n);
    await store.shutdown();
  });

  test('OFFSET_FOUND_NULL when the entry file is missing inside [min, max)', async () => {
    const store = await openStore(tempDir());
    for (let i = 0; i < 50; i++) await put(store, msg(i));
    const cq = store.getConsumeQueue('TopicTest', 0);
    assert.ok(cq !== undefined);
    // 20 entries per file: delete the first file as retention would, then pretend the minimum lagged.
    const deleted = cq.deleteExpiredFile(store.getMaxPhyOffset());
    assert.ok(deleted >= 1);
    cq.setMinLogicOffset(0);
    const r = await store.getMessage('g', 'TopicTest', 0, 3n, 32);
    assert.equal(r.status, GetMessageStatus.OFFSET_FOUND_NULL);
    assert.equal(r.nextBeginOffset, 20n, 'the start of the next consume-queue file');
    await store.shutdown();
  });
});

describe('DefaultMessageStore: transfer limits', () => {
  test('count and byte limits in memory, the disk limits and the slave hint for old data', async () => {
    const root = tempDir();
    const limits = {
      maxTransferCountOnMessageInMemory: 5,
      maxTransferBytesOnMessageInMemory: 64 * 1024,
      maxTransferCountOnMessageInDisk: 3,
      maxTransferBytesOnMessageInDisk: 64 * 1024,
    };
    let store = await openStore(root, limits);
    for (let i = 0; i < 20; i++) await put(store, msg(i, { body: 'z'.repeat(100) }));
    let r = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(r.messages.length, 5);
    assert.equal(r.nextBeginOffset, 5n);
    assert.equal(r.suggestPullingFromSlave, false);
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 2);
    assert.equal(r.messages.length, 2);
    // Upstream's isTheBatchFull admits the first message whatever maxMsgNums says.
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 0);
    assert.equal(r.messages.length, 1);
    const recordSize = r.bufferTotalSize;
    await store.shutdown();

    store = await openStore(root, { ...limits, maxTransferBytesOnMessageInMemory: recordSize * 3 + 1 });
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(r.messages.length, 3);
    assert.equal(r.bufferTotalSize, recordSize * 3);
    await store.shutdown();

    // With no memory assumed every record is "in disk".
    store = await openStore(root, limits, { totalPhysicalMemory: 0 });
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(r.messages.length, 3);
    assert.equal(r.suggestPullingFromSlave, true);
    assert.equal(store.checkInDiskByConsumeOffset('TopicTest', 0, 0n), true);
    await store.shutdown();

    store = await openStore(
      root,
      { ...limits, maxTransferBytesOnMessageInDisk: recordSize * 2 },
      { totalPhysicalMemory: 0 },
    );
    r = await store.getMessage('g', 'TopicTest', 0, 0n, 32);
    assert.equal(r.messages.length, 2);
    assert.equal(store.checkInDiskByConsumeOffset('TopicTest', 0, 99n), false, 'no entry');
    await store.shutdown();
  });
});

describe('DefaultMessageStore: lookups', () => {
  test('queryMessage by key and by UNIQ_KEY, within the time range', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = await openStore(tempDir(), {}, { clock });
    for (let i = 0; i < 30; i++) {
      await put(store, msg(i, { queueId: i % 2 }));
      clock.advance(1000);
    }
    const all = [0n, 2_000_000_000_000n] as const;
    let q = await store.queryMessage('TopicTest', 'key-7', 32, ...all);
    assert.deepEqual(
      q.messages.map((m) => decodeMessage(m).properties.get('idx')),
      ['7'],
    );
    assert.equal(q.bufferTotalSize, q.messages[0]?.length);
    assert.ok(q.indexLastUpdatePhyoffset > 0n);
    assert.equal(q.indexLastUpdateTimestamp, 1_700_000_029_000n);
    q = await store.queryMessage('TopicTest', 'k2-8', 32, ...all);
    assert.deepEqual(
      q.messages.map((m) => decodeMessage(m).properties.get('idx')),
      ['8'],
    );
    q = await store.queryMessage('TopicTest', uniqKey(12), 32, ...all);
    assert.deepEqual(
      q.messages.map((m) => decodeMessage(m).msgId),
      [uniqKey(12)],
    );
    assert.equal((await store.queryMessage('OtherTopic', 'key-7', 32, ...all)).messages.length, 0);
    assert.equal((await store.queryMessage('TopicTest', 'key-99', 32, ...all)).messages.length, 0);
    // Message 7 was stored at +7 s.
    const t7 = 1_700_000_007_000n;
    assert.equal(
      (await store.queryMessage('TopicTest', 'key-7', 32, t7 + 1000n, t7 + 5000n)).messages.length,
      0,
    );
    assert.equal(
      (await store.queryMessage('TopicTest', 'key-7', 32, t7 - 1000n, t7 + 1000n)).messages.length,
      1,
    );
    await store.shutdown();
  });

  test('offsets by time, store times, commit-log offsets, message ids and records by offset', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const store = await openStore(tempDir(), {}, { clock });
    const phys: bigint[] = [];
    for (let i = 0; i < 10; i++) {
      phys.push((await put(store, msg(i))).wroteOffset);
      clock.advance(10_000);
    }
    const t = (i: number): bigint => 1_700_000_000_000n + BigInt(i) * 10_000n;
    assert.equal(store.getOffsetInQueueByTime('TopicTest', 0, t(4)), 4n);
    assert.equal(store.getOffsetInQueueByTime('TopicTest', 0, t(4) + 2000n), 4n, 'nearer neighbour');
    assert.equal(store.getOffsetInQueueByTime('TopicTest', 0, t(4) + 8000n), 5n);
    assert.equal(store.getOffsetInQueueByTime('Nope', 0, t(4)), 0n);
    assert.equal(store.getEarliestMessageTime('TopicTest', 0), t(0));
    assert.equal(store.getEarliestMessageTime('Nope', 0), -1n);
    assert.equal(store.getEarliestMessageTime(), t(0));
    assert.equal(store.getMessageStoreTimeStamp('TopicTest', 0, 6n), t(6));
    assert.equal(store.getMessageStoreTimeStamp('TopicTest', 0, 60n), -1n);
    assert.equal(store.getCommitLogOffsetInQueue('TopicTest', 0, 3n), phys[3]);
    assert.equal(store.getCommitLogOffsetInQueue('TopicTest', 0, 30n), -1n);
    assert.equal(store.getMinPhyOffset(), 0n);
    assert.equal(store.getMaxPhyOffset(), BigInt(store.commitLog.getMaxOffset()));
    assert.equal(store.getMessageTotalInQueue('TopicTest', 0), 10n);

    const rec = store.selectOneMessageByOffset(phys[2] as bigint);
    assert.ok(rec !== undefined);
    assert.equal(decodeMessage(rec).properties.get('idx'), '2');
    assert.equal(store.lookMessageByOffset(phys[2] as bigint)?.queueOffset, 2n);
    assert.equal(store.selectOneMessageByOffset((phys[2] as bigint) + 3n), undefined, 'not a record start');
    assert.equal(store.selectOneMessageByOffset(store.getMaxPhyOffset()), undefined);
    assert.equal(store.selectOneMessageByOffset(-5n), undefined);

    const ids = store.getMessageIds('TopicTest', 0, 2n, 4n);
    assert.deepEqual(
      [...ids],
      [2, 3, 4].map((i) => [createOffsetMsgId(STORE_HOST, phys[i] as bigint), BigInt(i)]),
    );
    assert.equal(store.getMessageIds('TopicTest', 0, 4n, 4n).size, 0);
    assert.equal(store.getRuntimeInfo().get('commitLogMinOffset'), '0');
    await store.shutdown();
  });
});

describe('DefaultMessageStore: life cycle', () => {
  test('puts before start and after shutdown are refused; reads after shutdown are refused', async () => {
    const root = tempDir();
    const store = new DefaultMessageStore(storeConfig(root), { logger: quiet, clock: new ManualClock() });
    assert.equal((await store.putMessage(msg(0))).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    await store.load();
    assert.equal((await store.putMessage(msg(0))).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    await assert.rejects(store.load());
    await store.start();
    const stored = await store.putMessage(msg(0));
    assert.equal(stored.putMessageStatus, PutMessageStatus.PUT_OK);
    assert.ok(fs.existsSync(join(root, 'abort')));
    await store.shutdown();
    await store.shutdown();
    assert.ok(!fs.existsSync(join(root, 'abort')));
    assert.equal(fs.readFileSync(join(root, 'lock'), 'utf8'), 'lock');
    const checkpoint = fs.readFileSync(join(root, 'checkpoint'));
    assert.equal(checkpoint.length, 4096);
    // physicMsgTimestamp and logicsMsgTimestamp: the last message is flushed in both.
    assert.equal(checkpoint.readBigInt64BE(0), stored.appendMessageResult?.storeTimestamp);
    assert.equal(checkpoint.readBigInt64BE(8), stored.appendMessageResult?.storeTimestamp);
    assert.equal((await store.putMessage(msg(1))).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    await assert.rejects(store.getMessage('g', 'TopicTest', 0, 0n, 1), /not running/);
  });

  test('the lock: one open store per directory, a stale owner is taken over, a live one refuses', async () => {
    const root = tempDir();
    const first = await openStore(root);
    assert.match(fs.readFileSync(join(root, 'lock'), 'utf8'), new RegExp(`^lock pid=${process.pid}\\b`));
    const second = new DefaultMessageStore(storeConfig(root), { logger: quiet });
    await assert.rejects(
      second.load(),
      (err: unknown) => err instanceof StoreIOError && /already open/.test(err.message),
    );
    await first.shutdown();

    fs.writeFileSync(join(root, 'lock'), 'lock pid=999999999\n');
    const third = await openStore(root);
    await third.shutdown();

    fs.writeFileSync(join(root, 'lock'), `lock pid=${process.ppid}\n`);
    const fourth = new DefaultMessageStore(storeConfig(root), { logger: quiet });
    await assert.rejects(fourth.load(), new RegExp(`in use by process ${process.ppid}`));
    fs.writeFileSync(join(root, 'lock'), 'lock');
    const fifth = await openStore(root);
    await fifth.shutdown();
  });

  test('cleanUnusedTopic drops the queues and their offsets; kept topics stay', async () => {
    const root = tempDir();
    const store = await openStore(root);
    for (let i = 0; i < 3; i++) {
      await put(store, msg(i, { topic: 'Gone' }));
      await put(store, msg(i, { topic: 'Kept' }));
    }
    store.cleanUnusedTopic(new Set(['Kept']));
    assert.equal(store.getConsumeQueue('Gone', 0), undefined);
    assert.ok(!fs.existsSync(join(root, 'consumequeue', 'Gone')));
    assert.equal(store.getMaxOffsetInQueue('Kept', 0), 3n);
    assert.equal((await put(store, msg(9, { topic: 'Gone' }))).logicsOffset, 0n);
    await store.shutdown();
  });

  test('a load that fails on a damaged store releases the directory', async () => {
    const root = tempDir();
    const store = await openStore(root);
    await put(store, msg(0));
    await store.shutdown();
    fs.writeFileSync(join(root, 'commitlog', 'not-a-segment'), 'x');
    const broken = new DefaultMessageStore(storeConfig(root), { logger: quiet });
    await assert.rejects(broken.load(), /not-a-segment/);
    fs.rmSync(join(root, 'commitlog', 'not-a-segment'));
    const again = await openStore(root);
    assert.equal((await pullAll(again, 'TopicTest', 0)).length, 1);
    await again.shutdown();
  });
});
