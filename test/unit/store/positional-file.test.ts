import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MappedFile, offset2FileName } from '../../../src/store/mapped-file.js';
import { SegmentFile, SegmentFileError } from '../../../src/store/segment-files.js';
import { StoreCorruptionError, StoreIOError } from '../../../src/store/store-error.js';
import { TestIO, tempStoreDir } from './commit-log-support.js';

test('closing waits for a running write and fdatasync before the descriptor goes', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const file = MappedFile.create(root, 0, 4096, { io });
    file.appendMessage(Buffer.from('abc'));
    io.holdSyncs = true;
    const flushed = file.flush(0);
    io.holdWrites = true;
    const written = file.write(3, Buffer.from('def'));
    file.shutdown();
    assert.equal(file.isAvailable(), false);
    assert.throws(() => file.readInto(Buffer.alloc(3), 0, 3, 0), /read refused: the file is closed/);
    io.releaseSyncs();
    io.releaseWrites();
    assert.equal(await flushed, 3);
    await written;
    assert.equal(fs.readFileSync(file.fileName).subarray(0, 6).toString(), 'abcdef');
    file.setWrotePosition(6);
    await assert.rejects(file.flush(0), /fdatasync refused: the file is closed/);
  } finally {
    cleanup();
  }
});

test('MappedFile.open checks the size; only a file allowed to be short is extended', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const path = join(root, offset2FileName(8192));
    fs.writeFileSync(path, Buffer.alloc(100, 7));
    assert.throws(
      () => MappedFile.open(path, 4096),
      (err: unknown) =>
        err instanceof StoreCorruptionError &&
        err.physicalOffset === 8192 &&
        /file is 100 bytes, the configured segment size is 4096/.test(err.message),
    );
    const file = MappedFile.open(path, 4096, { allowShort: true });
    assert.equal(fs.statSync(path).size, 4096);
    const bytes = Buffer.alloc(4096, 1);
    assert.equal(file.readInto(bytes, 0, 4096, 0), 4096);
    assert.ok(bytes.subarray(0, 100).every((b) => b === 7));
    assert.ok(bytes.subarray(100).every((b) => b === 0));
    file.shutdown();
    assert.throws(() => MappedFile.open(join(root, 'missing'), 4096), StoreCorruptionError);
    assert.throws(
      () => MappedFile.open(join(root, offset2FileName(0)), 4096),
      (err: unknown) => err instanceof StoreIOError && /cannot open segment file: ENOENT/.test(err.message),
    );
  } finally {
    cleanup();
  }
});

test('SegmentFile creates its directories, reads exactly, and reports SegmentFileError naming the file', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const dir = join(root, 'consumequeue', 'T', '0');
    const file = SegmentFile.create(dir, offset2FileName(0), 100);
    assert.equal(fs.statSync(file.fileName).size, 100);
    file.writeSync(10, Buffer.from('hello'));
    const out = Buffer.alloc(5);
    file.read(out, 0, 5, 10);
    assert.equal(out.toString(), 'hello');
    assert.throws(() => file.read(out, 0, 5, 98), RangeError);
    await file.datasync();

    // Someone else cut the file short: an exact read is an error, not zeros.
    fs.truncateSync(file.fileName, 12);
    assert.throws(
      () => file.read(out, 0, 5, 10),
      (err: unknown) =>
        err instanceof SegmentFileError && err.file === file.fileName && /cut short/.test(err.message),
    );

    file.close();
    assert.throws(
      () => file.writeSync(0, Buffer.from('x')),
      (err: unknown) =>
        err instanceof SegmentFileError && /write refused: the file is closed/.test(err.message),
    );
    // A queue flushing a file it has just deleted has nothing left to sync.
    await file.datasync();
    file.destroy();
    assert.ok(!fs.existsSync(file.fileName));
    fs.writeFileSync(join(root, 'plain'), '');
    assert.throws(
      () => SegmentFile.create(join(root, 'plain', 'T', '0'), offset2FileName(0), 100),
      (err: unknown) => err instanceof SegmentFileError && /cannot create directory/.test(err.message),
    );
  } finally {
    cleanup();
  }
});
