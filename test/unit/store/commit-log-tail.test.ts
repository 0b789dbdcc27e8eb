import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommitLog } from '../../../src/store/commit-log.js';
import { CommitLogTail } from '../../../src/store/commit-log-tail.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import { joinRecords } from '../../../src/store/message-store.js';
import type { PutMessageResult } from '../../../src/store/put-message-result.js';
import { inner, smallConfig, TestIO, tempStoreDir } from './commit-log-support.js';

/** Writes `bytes` into the tail's slab as a turn would, and reports them written at `from`. */
function turn(tail: CommitLogTail, from: number, bytes: Buffer): void {
  const { out, start } = tail.reserve(bytes.length);
  bytes.copy(out.bytes, start);
  tail.used(start + bytes.length);
  tail.add(from, out.bytes, start, start + bytes.length);
}

const fill = (n: number, byte: number): Buffer => Buffer.alloc(n, byte);

/** A tail that a reader has woken (a cache starts asleep: see the next test but five). */
function wokenTail(capacity: number, slabSize: number): CommitLogTail {
  const tail = new CommitLogTail(capacity, slabSize);
  assert.equal(tail.read(0, 1), undefined);
  return tail;
}

test('tail: adjacent turns join one region', () => {
  const tail = wokenTail(1024, 256);
  turn(tail, 1000, fill(10, 1));
  turn(tail, 1010, fill(10, 2));
  assert.equal(tail.size, 20);
  assert.equal(tail.minOffset, 1000);
  const a = tail.read(1005, 10);
  assert.deepEqual([...(a ?? [])], [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
  a?.fill(0);
  assert.deepEqual([...(tail.read(1005, 2) ?? [])], [1, 1], 'reads are copies');
  assert.equal(tail.read(999, 2), undefined, 'below the tail');
  assert.equal(tail.read(1015, 6), undefined, 'past the written end');
  assert.equal(tail.read(1020, 1), undefined);
  assert.equal(tail.read(1000, 0), undefined);
});

test('tail: a read across two slabs is joined into a copy; a gap in the log is not bridged', () => {
  const tail = wokenTail(4096, 16);
  turn(tail, 0, fill(12, 7));
  turn(tail, 12, fill(12, 8)); // does not fit the first slab's 4 free bytes: a new slab
  const joined = tail.read(8, 8);
  assert.deepEqual([...(joined ?? [])], [7, 7, 7, 7, 8, 8, 8, 8]);
  // The next file starts past a gap (the rest of the previous file is the BLANK's unwritten part).
  turn(tail, 100, fill(4, 9));
  assert.equal(tail.read(20, 84), undefined);
  assert.deepEqual([...(tail.read(100, 4) ?? [])], [9, 9, 9, 9]);
});

test('tail: the oldest regions go once more than the capacity is held; dropBefore forgets deleted files', () => {
  const tail = wokenTail(100, 64);
  for (let i = 0; i < 10; i++) {
    turn(tail, i * 40, fill(40, i));
    assert.deepEqual(tail.read(i * 40, 40), fill(40, i), 'a reader that keeps up');
  }
  assert.equal(tail.size, 100);
  assert.equal(tail.minOffset, 300);
  assert.equal(tail.read(0, 40), undefined, 'the first turn is gone');
  assert.deepEqual([...(tail.read(360, 2) ?? [])], [9, 9]);
  tail.dropBefore(400);
  assert.equal(tail.size, 0);
  assert.equal(tail.minOffset, -1);
  assert.equal(tail.read(360, 2), undefined);
});

test('tail: the slab ring is reused; reads never see overwritten bytes, a one-off large slab included', () => {
  const tail = wokenTail(64, 32); // a ring of 3 slabs of 32
  let offset = 0;
  const written: Array<{ from: number; bytes: Buffer }> = [];
  for (let i = 0; i < 200; i++) {
    const size = i % 37 === 0 ? 80 : 1 + (i % 13); // 80 > 32: a slab of its own
    const bytes = fill(size, i % 251);
    turn(tail, offset, bytes);
    written.push({ from: offset, bytes });
    offset += size;
    for (const w of written.slice(-12)) {
      const got = tail.read(w.from, w.bytes.length);
      if (got !== undefined) assert.deepEqual(got, w.bytes, `turn at ${w.from} after ${i}`);
    }
  }
  assert.ok(tail.size <= 64);
  const last = written.at(-1)!;
  assert.deepEqual(tail.read(last.from, last.bytes.length), last.bytes);
});

test('tail: many separate regions (gaps between turns) survive the ring turning over', () => {
  const tail = wokenTail(10_000, 1000);
  for (let i = 0; i < 5000; i++) {
    turn(tail, i * 20, fill(10, i % 256)); // a gap of 10 after each turn: no two regions join
    const back = i - 300;
    if (back >= 0) {
      const got = tail.read(back * 20, 10);
      if (got !== undefined) assert.deepEqual(got, fill(10, back % 256));
    }
  }
  assert.deepEqual(tail.read(4999 * 20, 10), fill(10, 4999 % 256));
  assert.equal(tail.read(4999 * 20, 20), undefined, 'a gap is not bridged');
});

test('tail: with capacity 0 nothing is kept and the one slab is reused', () => {
  const tail = new CommitLogTail(0, 64);
  turn(tail, 0, fill(10, 1));
  assert.equal(tail.size, 0);
  assert.equal(tail.read(0, 10), undefined);
  assert.equal(tail.reserve(10).start, 0);
});

test('tail: asleep until a read near the head, asleep again once capacity bytes went unread', () => {
  const tail = new CommitLogTail(100, 64);
  turn(tail, 0, fill(40, 1));
  assert.equal(tail.size, 0, 'asleep from the start: nothing kept');
  assert.equal(tail.reserve(40).start, 0, 'asleep, every turn starts the slab again');
  assert.equal(tail.read(0, 40), undefined, 'the read that wakes it goes to the file');
  turn(tail, 40, fill(40, 2));
  assert.deepEqual(tail.read(40, 40), fill(40, 2));
  turn(tail, 80, fill(40, 3));
  turn(tail, 120, fill(40, 4));
  assert.equal(tail.size, 100, 'full, 80 bytes of it unread');
  turn(tail, 160, fill(40, 5)); // 120 bytes nobody read: more than the capacity
  assert.equal(tail.size, 0);
  assert.equal(tail.minOffset, -1);
  assert.equal(tail.read(120, 40), undefined);
  turn(tail, 200, fill(40, 6));
  assert.deepEqual(tail.read(200, 40), fill(40, 6), 'woken again by the read of 120');
  // A reader further behind than the capacity does not keep it awake.
  for (let i = 6; i < 12; i++) {
    turn(tail, i * 40, fill(40, i));
    assert.equal(tail.read(0, 40), undefined);
  }
  assert.equal(tail.size, 0);
  turn(tail, 480, fill(40, 12));
  // A read near the head that went to the file (the commit log's readData) wakes it too.
  tail.noteRead(480);
  turn(tail, 520, fill(40, 13));
  assert.deepEqual(tail.read(520, 40), fill(40, 13));
  assert.equal(tail.read(480, 40), undefined, 'written before the wake-up');
});

async function openLog(overrides: Partial<MessageStoreConfig> = {}) {
  const { root, cleanup } = tempStoreDir();
  const io = new TestIO();
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: 4096, ...overrides }), { io });
  cl.recoverNormally();
  cl.start();
  return {
    cl,
    io,
    root,
    done: async () => {
      await cl.shutdown();
      cleanup();
    },
  };
}

test('commit log: recent records are read from memory, byte-equal to the file, across file ends', async () => {
  const { cl, io, root, done } = await openLog();
  try {
    // A reader of the newest record wakes the cache (that record itself comes from the file).
    const woken = (await cl.putMessage(inner({ body: 'first' }))).appendMessageResult!;
    assert.ok(cl.getMessage(Number(woken.wroteOffset), woken.wroteBytes) !== undefined);
    const results: PutMessageResult[] = [];
    for (let i = 0; i < 60; i++)
      results.push(await cl.putMessage(inner({ body: `message ${i} `.repeat(8) })));
    assert.ok(cl.mappedFileQueue.getMappedFiles().length > 3, 'the records span several files');
    const firstFile = cl.mappedFileQueue.getMappedFiles()[1]!;
    const readsBefore = io.reads;
    const fromMemory = results.map((r) => {
      const a = r.appendMessageResult!;
      return cl.getMessage(Number(a.wroteOffset), a.wroteBytes)!;
    });
    // Not past the BLANK's 8 bytes: the rest of a file was never written, so it is read from the file.
    const firstData = cl.getData(firstFile.fileFromOffset, 1024);
    assert.equal(io.reads, readsBefore, 'no file read');
    assert.ok(firstData !== undefined && firstData.length > 0);

    // The same bytes from the files, with the tail left out (a fresh log over the same directory).
    await cl.shutdown();
    const reopened = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: 4096 }));
    reopened.recoverNormally();
    for (let i = 0; i < results.length; i++) {
      const a = results[i]!.appendMessageResult!;
      assert.deepEqual(reopened.getMessage(Number(a.wroteOffset), a.wroteBytes), fromMemory[i]);
    }
    assert.deepEqual(reopened.getData(firstFile.fileFromOffset, 1024), firstData);
    await reopened.shutdown();
  } finally {
    await done();
  }
});

test('commit log: past the tail capacity and with the cache off, reads go to the files', async () => {
  for (const capacity of [2048, 0]) {
    const { cl, io, done } = await openLog({
      commitLogTailCacheBytes: capacity,
      mappedFileSizeCommitLog: 64 * 1024,
    });
    try {
      const results: PutMessageResult[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await cl.putMessage(inner({ body: 'x'.repeat(200) }));
        results.push(r);
        // A reader that keeps up, which keeps the cache awake.
        cl.getMessage(Number(r.appendMessageResult!.wroteOffset), r.appendMessageResult!.wroteBytes);
      }
      const first = results[0]!.appendMessageResult!;
      const last = results.at(-1)!.appendMessageResult!;
      const before = io.reads;
      assert.ok(cl.getMessage(Number(first.wroteOffset), first.wroteBytes) !== undefined);
      assert.ok(io.reads > before, `capacity ${capacity}: the oldest record comes from the file`);
      const again = io.reads;
      assert.ok(cl.getMessage(Number(last.wroteOffset), last.wroteBytes) !== undefined);
      assert.equal(io.reads > again, capacity === 0, `capacity ${capacity}: the newest record`);
      assert.ok(cl.tailCacheStats().bytes <= capacity);
    } finally {
      await done();
    }
  }
});

test('commit log: records nobody reads are not kept; a read of the newest wakes the cache', async () => {
  const { cl, io, done } = await openLog({
    commitLogTailCacheBytes: 2048,
    mappedFileSizeCommitLog: 64 * 1024,
  });
  try {
    let last: PutMessageResult | undefined;
    for (let i = 0; i < 20; i++) last = await cl.putMessage(inner({ body: 'z'.repeat(300) }));
    assert.equal(cl.tailCacheStats().bytes, 0);
    const a = last!.appendMessageResult!;
    const before = io.reads;
    assert.ok(cl.getMessage(Number(a.wroteOffset), a.wroteBytes) !== undefined);
    assert.ok(io.reads > before, 'from the file');
    const next = (await cl.putMessage(inner({ body: 'z'.repeat(300) }))).appendMessageResult!;
    const again = io.reads;
    assert.ok(cl.getMessage(Number(next.wroteOffset), next.wroteBytes) !== undefined);
    assert.equal(io.reads, again, 'from memory');
    assert.equal(cl.tailCacheStats().minOffset, Number(next.wroteOffset));
  } finally {
    await done();
  }
});

test('commit log: a record of a deleted file is not served from memory', async () => {
  const { cl, done } = await openLog();
  try {
    const results: PutMessageResult[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await cl.putMessage(inner({ body: 'y'.repeat(300) }));
      results.push(r);
      cl.getMessage(Number(r.appendMessageResult!.wroteOffset), r.appendMessageResult!.wroteBytes);
    }
    const files = cl.mappedFileQueue.getMappedFiles().length;
    assert.ok(files > 2);
    const first = results[0]!.appendMessageResult!;
    assert.ok(cl.getMessage(Number(first.wroteOffset), first.wroteBytes) !== undefined);
    const deleted = await cl.deleteExpiredFile(0, 0, 0, true);
    assert.ok(deleted > 0);
    assert.equal(cl.getMessage(Number(first.wroteOffset), first.wroteBytes), undefined);
    assert.ok(cl.tailCacheStats().minOffset >= cl.getMinOffset());
  } finally {
    await done();
  }
});

test('joinRecords: records back to back in one block are that block; others are joined copies', () => {
  const block = Buffer.alloc(9); // not from the shared pool, whose block other buffers share
  block.write('aaabbbbcc');
  const parts = [block.subarray(0, 3), block.subarray(3, 7), block.subarray(7, 9)];
  const joined = joinRecords(parts, 9);
  assert.equal(joined.toString(), 'aaabbbbcc');
  assert.equal(joined.buffer, block.buffer, 'no copy');
  const gap = [block.subarray(0, 3), block.subarray(7, 9)];
  assert.equal(joinRecords(gap, 5).toString(), 'aaacc');
  const other = [block.subarray(0, 3), Buffer.from('xy')];
  const copy = joinRecords(other, 5);
  assert.equal(copy.toString(), 'aaaxy');
  assert.notEqual(copy.buffer, block.buffer);
  assert.equal(joinRecords([], 0).length, 0);
});
