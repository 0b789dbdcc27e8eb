import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileName2Offset, MappedFile, offset2FileName } from '../../../src/store/mapped-file.js';
import { StoreCorruptionError, StoreIOError } from '../../../src/store/store-error.js';
import { ioError, TestIO, tempStoreDir } from './commit-log-support.js';

test('segment file names are the 20-digit start offset', () => {
  assert.equal(offset2FileName(0), '00000000000000000000');
  assert.equal(offset2FileName(1073741824), '00000000001073741824');
  assert.equal(fileName2Offset('00000000001073741824'), 1073741824);
  assert.equal(fileName2Offset('1073741824'), undefined);
  assert.equal(fileName2Offset('0000000000107374182x'), undefined);
  assert.throws(() => offset2FileName(-1), RangeError);
});

test('create makes a full-size sparse file and fsyncs it and its directory', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const file = MappedFile.create(root, 4 * 1024 * 1024, 1024 * 1024, { io });
    assert.equal(file.name, '00000000000004194304');
    assert.equal(file.fileFromOffset, 4 * 1024 * 1024);
    const st = fs.statSync(join(root, file.name));
    assert.equal(st.size, 1024 * 1024);
    assert.ok(st.blocks * 512 < 64 * 1024, `sparse: ${st.blocks * 512} bytes allocated`);
    // One fsync for the file, one for the directory entry.
    assert.equal(io.fsyncs, 2);
    assert.equal(file.getWrotePosition(), 0);
    assert.throws(
      () => MappedFile.create(root, 4 * 1024 * 1024, 1024 * 1024),
      (err: unknown) => {
        assert.ok(err instanceof StoreIOError);
        assert.match(err.message, /00000000000004194304: cannot create segment file: EEXIST/);
        return true;
      },
    );
    file.shutdown();
  } finally {
    cleanup();
  }
});

test('a file whose name is not an offset is refused', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    fs.writeFileSync(join(root, 'junk'), '');
    assert.throws(() => MappedFile.open(join(root, 'junk'), 4096), StoreCorruptionError);
  } finally {
    cleanup();
  }
});

test('appendMessage, positional writes and reads bounded by the write position', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const file = MappedFile.create(root, 0, 4096);
    assert.ok(file.appendMessage(Buffer.from('abcdef')));
    assert.equal(file.getWrotePosition(), 6);
    assert.deepEqual(file.selectMappedBuffer(1, 3), Buffer.from('bcd'));
    assert.deepEqual(file.selectMappedBuffer(2), Buffer.from('cdef'));
    // Not yet written: not readable.
    assert.equal(file.selectMappedBuffer(4, 3), undefined);
    assert.equal(file.selectMappedBuffer(-1, 1), undefined);
    await file.write(6, Buffer.from('xyz!'), 0, 3);
    assert.equal(file.selectMappedBuffer(6, 3), undefined);
    file.setWrotePosition(9);
    assert.deepEqual(file.selectMappedBuffer(0, 9), Buffer.from('abcdefxyz'));
    file.writeSync(9, Buffer.from('--12--'), 2, 2);
    file.setWrotePosition(11);
    assert.deepEqual(file.selectMappedBuffer(9, 2), Buffer.from('12'));
    assert.ok(!file.appendMessage(Buffer.alloc(4096)), 'does not fit');
    assert.throws(() => file.writeSync(4095, Buffer.alloc(2)), RangeError);
    await assert.rejects(file.write(4095, Buffer.alloc(2)), RangeError);
    const raw = Buffer.alloc(16, 0xee);
    assert.equal(file.readInto(raw, 0, 16, 4090), 6, 'reads stop at the file end');
    assert.deepEqual(raw.subarray(0, 6), Buffer.alloc(6));
    file.shutdown();
    assert.equal(file.selectMappedBuffer(0, 1), undefined);
  } finally {
    cleanup();
  }
});

test('flush syncs when enough pages are dirty and reports the flushed position', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const file = MappedFile.create(root, 0, 64 * 1024, { io });
    file.appendMessage(Buffer.alloc(3 * 4096 + 10, 1));
    assert.equal(file.isAbleToFlush(4), false, '3 dirty pages < 4');
    assert.equal(await file.flush(4), 0);
    assert.equal(io.fdatasyncs, 0);
    assert.equal(file.isAbleToFlush(0), true);
    assert.equal(await file.flush(0), 3 * 4096 + 10);
    assert.equal(io.fdatasyncs, 1);
    assert.equal(await file.flush(0), 3 * 4096 + 10, 'nothing new: no fdatasync');
    assert.equal(io.fdatasyncs, 1);
    file.appendMessage(Buffer.alloc(4096, 2));
    // Two calls at once: the second waits for the first, then syncs what is left.
    io.holdSyncs = true;
    const first = file.flush(0);
    const second = file.flush(0);
    assert.equal(io.heldSyncs, 1);
    io.holdSyncs = false;
    io.releaseSyncs();
    assert.equal(await first, 4 * 4096 + 10);
    assert.equal(await second, 4 * 4096 + 10);
    file.setWrotePosition(64 * 1024);
    assert.ok(file.isFull());
    assert.ok(file.isAbleToFlush(100), 'a full file is always flushed');
    assert.equal(file.flushSync(100), 64 * 1024);
    file.shutdown();
  } finally {
    cleanup();
  }
});

test('truncateTo zeroes everything after the position and keeps the file size', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const file = MappedFile.create(root, 0, 64 * 1024);
    file.appendMessage(Buffer.alloc(40 * 1024, 0xab));
    file.flushSync();
    file.truncateTo(10_000);
    assert.equal(file.getWrotePosition(), 10_000);
    assert.equal(file.getFlushedPosition(), 10_000);
    assert.equal(fs.statSync(file.fileName).size, 64 * 1024);
    const all = Buffer.alloc(64 * 1024);
    file.readInto(all, 0, all.length, 0);
    assert.ok(all.subarray(0, 10_000).every((b) => b === 0xab));
    assert.ok(all.subarray(10_000).every((b) => b === 0));
    assert.ok(file.allocatedBytes() <= 16 * 1024, 'the blocks after the cut are freed');
    file.shutdown();
  } finally {
    cleanup();
  }
});

test('after a failed write the file refuses every later write and says why', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const file = MappedFile.create(root, 0, 4096, { io });
    file.appendMessage(Buffer.from('ok'));
    io.failNextWrite = ioError('EIO', 'write');
    assert.throws(
      () => file.appendMessage(Buffer.from('lost')),
      (err: unknown) => {
        assert.ok(err instanceof StoreIOError);
        assert.equal(err.fileName, file.fileName);
        assert.match(err.message, /write of 4 bytes at offset 2 failed: EIO/);
        return true;
      },
    );
    assert.equal(file.getWrotePosition(), 2);
    // The next write would succeed at the OS level, but the file refuses it.
    assert.throws(() => file.writeSync(2, Buffer.from('x')), /write refused after an earlier failure: .*EIO/);
    await assert.rejects(file.write(2, Buffer.from('x')), /refused after an earlier failure/);
    await assert.rejects(file.flush(0), /fdatasync refused after an earlier failure/);
    assert.throws(() => file.truncateTo(0), /refused/);
    assert.match(file.getFailure()?.message ?? '', /EIO/);
    assert.equal(io.writes, 2, 'no write reached the OS after the failure');
    file.shutdown();
  } finally {
    cleanup();
  }
});

test('an asynchronous write failure and an fdatasync failure also stop writes', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const a = MappedFile.create(root, 0, 4096, { io });
    io.failNextWrite = ioError('EIO', 'write');
    await assert.rejects(a.write(0, Buffer.from('abc')), /write of 3 bytes at offset 0 failed: EIO/);
    await assert.rejects(a.write(0, Buffer.from('abc')), /refused after an earlier failure: .*EIO/);
    a.shutdown();

    const b = MappedFile.create(root, 4096, 4096, { io });
    b.appendMessage(Buffer.from('abc'));
    io.failNextSync = ioError('EIO', 'fdatasync');
    await assert.rejects(b.flush(0), /fdatasync of 3 bytes at offset 0 failed: EIO/);
    assert.equal(b.getFlushedPosition(), 0);
    assert.throws(() => b.appendMessage(Buffer.from('d')), /refused after an earlier failure: .*fdatasync/);
    b.shutdown();
  } finally {
    cleanup();
  }
});

test('a write refused for space leaves the file writable: it lost nothing', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const io = new TestIO();
    const file = MappedFile.create(root, 0, 4096, { io });
    io.failNextWrite = ioError('ENOSPC', 'write');
    await assert.rejects(file.write(0, Buffer.from('abc')), /failed: ENOSPC/);
    io.failNextWrite = ioError('EFBIG', 'write');
    assert.throws(() => file.writeSync(0, Buffer.from('abc')), /failed: EFBIG/);
    assert.equal(file.getFailure(), undefined);
    await file.write(0, Buffer.from('abc'));
    file.shutdown();
  } finally {
    cleanup();
  }
});

test('destroy closes and deletes the file', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const file = MappedFile.create(root, 0, 4096);
    assert.ok(file.destroy());
    assert.ok(!fs.existsSync(file.fileName));
    assert.ok(!file.isAvailable());
    assert.ok(file.destroy(), 'already gone counts as deleted');
  } finally {
    cleanup();
  }
});
