import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { offset2FileName } from '../../../src/store/mapped-file.js';
import { MappedFileQueue } from '../../../src/store/mapped-file-queue.js';
import { StoreCorruptionError } from '../../../src/store/store-error.js';
import { TestIO, tempStoreDir } from './commit-log-support.js';

const SIZE = 4096;

function makeFiles(dir: string, offsets: number[], size = SIZE): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const o of offsets) {
    const fd = fs.openSync(join(dir, offset2FileName(o)), 'w');
    fs.ftruncateSync(fd, size);
    fs.closeSync(fd);
  }
}

test('load opens the segments in offset order, full, and answers offset questions', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const dir = join(root, 'q');
    makeFiles(dir, [3 * SIZE, SIZE, 2 * SIZE]);
    const q = new MappedFileQueue(dir, SIZE);
    q.load();
    assert.deepEqual(
      q.getMappedFiles().map((f) => f.fileFromOffset),
      [SIZE, 2 * SIZE, 3 * SIZE],
    );
    assert.ok(q.getMappedFiles().every((f) => f.isFull() && f.getFlushedPosition() === SIZE));
    assert.equal(q.getMinOffset(), SIZE);
    assert.equal(q.getMaxOffset(), 4 * SIZE);
    assert.equal(q.findMappedFileByOffset(2 * SIZE + 5)?.fileFromOffset, 2 * SIZE);
    assert.equal(q.findMappedFileByOffset(4 * SIZE - 1)?.fileFromOffset, 3 * SIZE);
    assert.equal(q.findMappedFileByOffset(4 * SIZE), undefined);
    assert.equal(q.findMappedFileByOffset(0), undefined);
    assert.equal(q.findMappedFileByOffset(0, true)?.fileFromOffset, SIZE);
    assert.deepEqual(q.checkSelf(), []);
    // The last file is full: a new one follows it.
    const next = q.getLastMappedFileOrCreate(0);
    assert.equal(next?.fileFromOffset, 4 * SIZE);
    assert.equal(q.getLastMappedFileOrCreate(0), next, 'not full: no new file');
    q.shutdown();
  } finally {
    cleanup();
  }
});

test('load refuses foreign names, wrong sizes and gaps, naming the file', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const cases: Array<[string, () => void, RegExp]> = [
      [
        'name',
        () => makeFiles(join(root, 'name'), [0]) ?? fs.writeFileSync(join(root, 'name', 'x.tmp'), ''),
        /x\.tmp: unexpected file/,
      ],
      [
        'size',
        () => makeFiles(join(root, 'size'), [0, SIZE], SIZE * 2),
        /00000000000000000000: file is 8192 bytes, the configured segment size is 4096/,
      ],
      [
        'gap',
        () => makeFiles(join(root, 'gap'), [0, 2 * SIZE]),
        /00000000000000008192: gap in the segment files/,
      ],
      [
        'align',
        () => makeFiles(join(root, 'align'), [100]),
        /00000000000000000100: start offset is not a multiple/,
      ],
    ];
    for (const [name, make, message] of cases) {
      make();
      const q = new MappedFileQueue(join(root, name), SIZE);
      assert.throws(
        () => q.load(),
        (err: unknown) => err instanceof StoreCorruptionError && message.test(err.message),
        name,
      );
    }
  } finally {
    cleanup();
  }
});

test('a short last segment (an interrupted cut-back) is extended again', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const dir = join(root, 'q');
    makeFiles(dir, [0]);
    fs.writeFileSync(join(dir, offset2FileName(SIZE)), Buffer.alloc(100, 7));
    const q = new MappedFileQueue(dir, SIZE);
    q.load();
    assert.equal(fs.statSync(join(dir, offset2FileName(SIZE))).size, SIZE);
    const bytes = Buffer.alloc(SIZE);
    q.getLastMappedFile()?.readInto(bytes, 0, SIZE, 0);
    assert.ok(bytes.subarray(0, 100).every((b) => b === 7));
    assert.ok(bytes.subarray(100).every((b) => b === 0));
    q.shutdown();
  } finally {
    cleanup();
  }
});

test('truncateDirtyFiles cuts the file holding the offset and deletes the later ones', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const dir = join(root, 'q');
    const q = new MappedFileQueue(dir, SIZE);
    for (let i = 0; i < 3; i++) {
      const f = q.getLastMappedFileOrCreate(0)!;
      f.appendMessage(Buffer.alloc(SIZE, i + 1));
    }
    assert.equal(q.getMaxOffset(), 3 * SIZE);
    q.setFlushedWhere(3 * SIZE);
    q.truncateDirtyFiles(SIZE + 100);
    assert.deepEqual(fs.readdirSync(dir).sort(), [offset2FileName(0), offset2FileName(SIZE)]);
    assert.equal(q.getMaxOffset(), SIZE + 100);
    assert.equal(q.getFlushedWhere(), SIZE + 100);
    const tail = Buffer.alloc(SIZE);
    q.getLastMappedFile()?.readInto(tail, 0, SIZE, 0);
    assert.ok(tail.subarray(0, 100).every((b) => b === 2));
    assert.ok(tail.subarray(100).every((b) => b === 0));
    q.deleteLastMappedFile();
    assert.deepEqual(fs.readdirSync(dir), [offset2FileName(0)]);
    q.shutdown();
  } finally {
    cleanup();
  }
});

test('deleteExpiredFileByTime deletes old leading files, never the last one, pausing between files', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const dir = join(root, 'q');
    const clock = new ManualClock(Date.now());
    const q = new MappedFileQueue(dir, SIZE);
    for (let i = 0; i < 5; i++) q.getLastMappedFileOrCreate(0)!.appendMessage(Buffer.alloc(SIZE, 1));
    const files = q.getMappedFiles().slice();
    const hour = 3_600_000;
    // Files 0 and 1 are 3 h old, file 2 is fresh, files 3 and 4 are old again.
    const ages = [3, 3, 0, 3, 3];
    files.forEach((f, i) => {
      const t = new Date(clock.now() - (ages[i] ?? 0) * hour);
      fs.utimesSync(f.fileName, t, t);
    });
    const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
    const done = q.deleteExpiredFileByTime(2 * hour, 100, 0, false, clock);
    // The first file goes at once; upstream pauses after every deleted file.
    await tick();
    assert.equal(q.getMappedFiles().length, 4);
    clock.advance(99);
    await tick();
    assert.equal(q.getMappedFiles().length, 4, 'still pausing');
    clock.advance(1);
    await tick();
    assert.equal(q.getMappedFiles().length, 3);
    clock.advance(100);
    assert.equal(await done, 2);
    assert.deepEqual(
      q.getMappedFiles().map((f) => f.fileFromOffset),
      [2 * SIZE, 3 * SIZE, 4 * SIZE],
      'stops at the first live file',
    );
    assert.equal(await q.deleteExpiredFileByTime(2 * hour, 0, 0, true, clock), 2, 'cleanImmediately');
    assert.deepEqual(
      q.getMappedFiles().map((f) => f.fileFromOffset),
      [4 * SIZE],
    );
    assert.equal(await q.deleteExpiredFileByTime(0, 0, 0, true, clock), 0, 'the active file stays');
    assert.deepEqual(fs.readdirSync(dir), [offset2FileName(4 * SIZE)]);
    q.shutdown();
  } finally {
    cleanup();
  }
});

test('deleteExpiredFileByOffset drops consume-queue files whose last entry is below the offset', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const q = new MappedFileQueue(join(root, 'cq'), 40);
    // Two 20-byte entries per file: commitLogOffset int64 | size int32 | tagsCode int64.
    const entry = (offset: number): Buffer => {
      const b = Buffer.alloc(20);
      b.writeBigInt64BE(BigInt(offset), 0);
      b.writeInt32BE(100, 8);
      return b;
    };
    for (const o of [0, 100, 200, 300, 400, 500]) q.getLastMappedFileOrCreate(0)!.appendMessage(entry(o));
    // Files hold [0, 100], [200, 300], [400, 500].
    assert.equal(q.deleteExpiredFileByOffset(250, 20), 1, 'only the first file ends below 250');
    assert.equal(q.getMinOffset(), 40);
    assert.equal(q.deleteExpiredFileByOffset(10_000, 20), 1, 'never the last file');
    assert.equal(q.getMappedFiles().length, 1);
    q.shutdown();
  } finally {
    cleanup();
  }
});

test('flush and flushAll sync every dirty file in order', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const q = new MappedFileQueue(join(root, 'q'), SIZE, { io });
    q.getLastMappedFileOrCreate(0)!.appendMessage(Buffer.alloc(SIZE, 1));
    q.getLastMappedFileOrCreate(0)!.appendMessage(Buffer.alloc(100, 1));
    q.getLastMappedFile()!.setStoreTimestamp(1234);
    assert.equal(await q.flushAll(), SIZE + 100);
    assert.equal(io.fdatasyncs, 2);
    assert.equal(q.getStoreTimestamp(), 1234);
    assert.equal(q.remainHowManyDataToFlush(), 0);
    assert.equal(await q.flush(0), true, 'nothing moved');
    q.getLastMappedFile()!.appendMessage(Buffer.alloc(100, 1));
    assert.equal(q.flushAllSync(), SIZE + 200);
    assert.equal(io.fdatasyncs, 3);
    q.shutdown();
  } finally {
    cleanup();
  }
});
