import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { ConsumeQueue } from '../../../src/store/consume-queue.js';
import { CQ_STORE_UNIT_SIZE } from '../../../src/store/consume-queue-entry.js';
import { PullReadCache } from '../../../src/store/pull-read-cache.js';
import { inner, rng, smallConfig, tempStoreDir } from './commit-log-support.js';

const quiet = createLogger('test', { level: 'silent' });
const FILE_SIZE = 16 * 1024;
const BLOCK = 512;

/** A commit log of 16 KiB files with nothing kept in memory, so every read goes to the files. */
function openLog(): { cl: CommitLog; done: () => Promise<void> } {
  const { root, cleanup } = tempStoreDir('rmq-prc-');
  const cl = new CommitLog(
    smallConfig(root, {
      mappedFileSizeCommitLog: FILE_SIZE,
      maxMessageSize: 4096,
      commitLogTailCacheBytes: 0,
    }),
    { clock: new ManualClock(1_700_000_000_000), logger: quiet },
  );
  cl.addDispatcher({ dispatch: () => {} });
  cl.recoverNormally();
  return {
    cl,
    done: async () => {
      await cl.shutdown();
      cleanup();
    },
  };
}

/** Puts `n` records with bodies of 0..max bytes; returns where each lies. */
async function fill(cl: CommitLog, n: number, max: number, seed: number) {
  const random = rng(seed);
  const records: { offset: number; size: number }[] = [];
  for (let i = 0; i < n; i++) {
    const body = Buffer.alloc(Math.floor(random() * max), i & 0xff);
    const r = (await cl.putMessage(inner({ body, queueId: i % 4 }))).appendMessageResult;
    assert.ok(r !== undefined);
    records.push({ offset: Number(r.wroteOffset), size: r.wroteBytes });
  }
  return records;
}

test('read cache: a record is the bytes the commit log gives, within a block, across two, past a file end', async () => {
  const { cl, done } = await openLog();
  try {
    // Bodies up to 700 bytes: some records cross a 512-byte block, some are larger than one.
    const records = await fill(cl, 120, 700, 7);
    assert.ok(cl.getMaxOffset() > 2 * FILE_SIZE, 'spans several files');
    const cache = new PullReadCache(4 * BLOCK, cl, FILE_SIZE, BLOCK);
    const order = rng(11);
    for (let round = 0; round < 3; round++) {
      cache.beginPull();
      for (let k = 0; k < records.length; k++) {
        const { offset, size } = records[Math.floor(order() * records.length)] as (typeof records)[number];
        assert.deepEqual(cache.record(offset, size), cl.getMessage(offset, size), `record at ${offset}`);
      }
    }
    assert.ok(cache.size <= 4 * BLOCK + 2 * 20 * BLOCK, 'bounded');
  } finally {
    await done();
  }
});

test('read cache: what one pull borrowed stays intact until the next pull, whatever the capacity', async () => {
  const { cl, done } = await openLog();
  try {
    const records = await fill(cl, 200, 300, 3);
    // Capacity below one block: every read evicts, and evicted memory is reused.
    const cache = new PullReadCache(1, cl, FILE_SIZE, BLOCK);
    for (let start = 0; start < records.length; start += 50) {
      cache.beginPull();
      const pull = records.slice(start, start + 50);
      const got = pull.map(({ offset, size }) => cache.record(offset, size));
      got.forEach((b, i) => {
        const { offset, size } = pull[i] as (typeof pull)[number];
        assert.deepEqual(b, cl.getMessage(offset, size), `record ${start + i} at the end of its pull`);
      });
    }
  } finally {
    await done();
  }
});

test('read cache: a block read while its file was being written there is read again for the bytes after', async () => {
  const { cl, done } = await openLog();
  try {
    const cache = new PullReadCache(64 * BLOCK, cl, FILE_SIZE, BLOCK);
    const [first] = await fill(cl, 1, 10, 1);
    assert.ok(first !== undefined && first.size < BLOCK);
    cache.beginPull();
    assert.deepEqual(cache.record(first.offset, first.size), cl.getMessage(first.offset, first.size));
    const [second] = await fill(cl, 1, 10, 2);
    assert.ok(second !== undefined && second.offset + second.size <= BLOCK, 'in the same block');
    cache.beginPull();
    assert.deepEqual(cache.record(second.offset, second.size), cl.getMessage(second.offset, second.size));
    assert.equal(cache.record(second.offset + second.size, 100), undefined, 'not written yet');
  } finally {
    await done();
  }
});

test('read cache: consume-queue entries as getIndexBuffer gives them (what it holds may end sooner), read ahead, read again past the end held', async () => {
  const { cl, done } = await openLog();
  const { root, cleanup } = tempStoreDir('rmq-prc-cq-');
  const entriesPerFile = 100;
  const cq = new ConsumeQueue('TopicA', 0, {
    storePath: join(root, 'consumequeue'),
    mappedFileSize: entriesPerFile * CQ_STORE_UNIT_SIZE,
    logger: quiet,
  });
  try {
    const put = (from: number, to: number): void => {
      for (let i = from; i < to; i++) cq.putEntry(BigInt(i * 100), 50, BigInt(i), BigInt(i));
      cq.commit();
    };
    put(0, 150);
    const cache = new PullReadCache(1 << 20, cl, FILE_SIZE, BLOCK, 30);
    // At least one entry, and never more than getIndexBuffer gives: a prefix of its answer.
    const same = (index: number, max: number, expected: number): void => {
      const got = cache.entries(cq, BigInt(index), max);
      assert.equal((got?.length ?? 0) / CQ_STORE_UNIT_SIZE, expected, `${index} x ${max}`);
      assert.deepEqual(got, cq.getIndexBuffer(BigInt(index), expected), `${index} x ${max}`);
    };
    same(0, 10, 10); // reads 30 ahead
    same(10, 10, 10); // from what it holds
    same(25, 10, 5); // what it holds ends at 30
    same(30, 50, 50); // 50 from the file
    same(95, 32, 5); // the rest of the first file only
    same(140, 32, 10); // the end
    put(150, 160);
    same(150, 32, 10); // past what is held: read again, the new entries are there
    assert.equal(cache.entries(cq, 160n, 5), undefined, 'past the end');
    assert.equal(cq.getIndexBuffer(160n, 5), undefined);
  } finally {
    cq.destroy();
    cleanup();
    await done();
  }
});
