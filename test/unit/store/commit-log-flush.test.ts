import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { StoreCheckpoint } from '../../../src/store/checkpoint.js';
import { CommitLog, type CommitLogOptions } from '../../../src/store/commit-log.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import { type PutMessageResult, PutMessageStatus } from '../../../src/store/put-message-result.js';
import { inner, ioError, smallConfig, TestIO, tempStoreDir, until } from './commit-log-support.js';

const T0 = 1_700_000_000_000;

interface Opened {
  cl: CommitLog;
  clock: ManualClock;
  io: TestIO;
  checkpoint: StoreCheckpoint;
  logs: LogRecord[];
  done: () => Promise<void>;
}

function open(overrides: Partial<MessageStoreConfig>, options: CommitLogOptions = {}): Opened {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(T0);
  const io = new TestIO();
  const logs: LogRecord[] = [];
  const checkpoint = new StoreCheckpoint(join(root, 'checkpoint'));
  const cl = new CommitLog(smallConfig(root, overrides), {
    clock,
    io,
    checkpoint,
    logger: createLogger('test', { level: 'debug', sink: (r) => logs.push(r) }),
    ...options,
  });
  cl.recoverNormally();
  cl.start();
  return {
    cl,
    clock,
    io,
    checkpoint,
    logs,
    done: async () => {
      io.holdSyncs = false;
      io.releaseSyncs();
      io.holdWrites = false;
      io.releaseWrites();
      await cl.shutdown();
      cleanup();
    },
  };
}

/** Tracks which of the promises have settled. */
function track(promises: Array<Promise<PutMessageResult>>): { settled: () => number } {
  let n = 0;
  for (const p of promises) void p.then(() => n++);
  return { settled: () => n };
}

test('ASYNC_FLUSH acknowledges once written, before any fdatasync', async () => {
  const { cl, io, done } = open({ flushDiskType: 'ASYNC_FLUSH' });
  try {
    const r = await cl.putMessage(inner());
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    assert.equal(io.fdatasyncs, 0);
    assert.equal(cl.getFlushedWhere(), 0);
    assert.equal(cl.getMaxOffset(), r.appendMessageResult!.wroteBytes);
  } finally {
    await done();
  }
});

test('the interval flush waits for enough dirty pages, or for the thorough interval', async () => {
  const { cl, clock, io, checkpoint, done } = open({
    flushDiskType: 'ASYNC_FLUSH',
    mappedFileSizeCommitLog: 1024 * 1024,
    flushIntervalCommitLog: 500,
    flushCommitLogLeastPages: 4,
    flushCommitLogThoroughInterval: 10_000,
  });
  try {
    await cl.putMessage(inner({ body: Buffer.alloc(1000) }));
    clock.advance(500);
    await until(() => true, 3);
    assert.equal(io.fdatasyncs, 0, 'one dirty page is fewer than 4');
    // Four more pages.
    clock.advance(100);
    for (let i = 0; i < 4; i++) await cl.putMessage(inner({ body: Buffer.alloc(4096) }));
    const synced = io.syncDone();
    clock.advance(400);
    await synced;
    await until(() => cl.getFlushedWhere() === cl.getMaxOffset());
    assert.equal(io.fdatasyncs, 1);
    // As upstream, only a flush of everything (leastPages 0) moves the checkpoint.
    assert.equal(checkpoint.getPhysicMsgTimestamp(), 0n);
    // One more page-less append: only the thorough interval flushes it.
    clock.advance(100);
    await cl.putMessage(inner({ body: 'tail' }));
    for (let t = 0; t < 8; t++) {
      clock.advance(500);
      await until(() => true, 3);
    }
    assert.equal(io.fdatasyncs, 1);
    // The rounds up to 9.5 s leave the lone page alone; the round at 10 s flushes everything.
    while (clock.now() + 500 < T0 + 10_000) {
      clock.advance(500);
      await until(() => true, 3);
    }
    assert.equal(io.fdatasyncs, 1);
    const thorough = io.syncDone();
    clock.advance(500);
    await thorough;
    await until(() => cl.getFlushedWhere() === cl.getMaxOffset());
    assert.equal(io.fdatasyncs, 2);
    assert.equal(checkpoint.getPhysicMsgTimestamp(), BigInt(T0 + 1100));
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: concurrent appends share one fdatasync and are acknowledged after it', async () => {
  const { cl, io, done } = open({ flushDiskType: 'SYNC_FLUSH' });
  try {
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => cl.putMessage(inner({ body: `m${i}` }))),
    );
    assert.ok(results.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    assert.equal(io.fdatasyncs, 1);
    assert.equal(cl.groupCommitSyncCount, 1);
    assert.equal(cl.getFlushedWhere(), cl.getMaxOffset());
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: appends written during an fdatasync wait for the next one, which covers them all', async () => {
  const { cl, io, done } = open({ flushDiskType: 'SYNC_FLUSH' });
  try {
    io.holdSyncs = true;
    const first = Array.from({ length: 10 }, (_, i) => cl.putMessage(inner({ body: `a${i}` })));
    const firstTrack = track(first);
    await io.nextSync();
    assert.equal(io.heldSyncs, 1);
    const second = Array.from({ length: 20 }, (_, i) => cl.putMessage(inner({ body: `b${i}` })));
    const secondTrack = track(second);
    await cl.whenIdle();
    assert.equal(firstTrack.settled(), 0, 'written but not yet durable');
    assert.equal(cl.getMaxOffset() > cl.getFlushedWhere(), true);
    const nextSync = io.nextSync();
    io.releaseSyncs();
    const firstResults = await Promise.all(first);
    assert.ok(firstResults.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    await nextSync;
    assert.equal(secondTrack.settled(), 0, 'the second group waits for its own fdatasync');
    io.holdSyncs = false;
    io.releaseSyncs();
    const secondResults = await Promise.all(second);
    assert.ok(secondResults.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    assert.equal(io.fdatasyncs, 2);
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: an fdatasync slower than syncFlushTimeout gives FLUSH_DISK_TIMEOUT', async () => {
  const { cl, clock, io, done } = open({ flushDiskType: 'SYNC_FLUSH', syncFlushTimeout: 5000 });
  try {
    io.holdSyncs = true;
    const slow = cl.putMessage(inner({ body: 'slow' }));
    const slowTrack = track([slow]);
    await io.nextSync();
    clock.advance(4999);
    await until(() => true, 3);
    assert.equal(slowTrack.settled(), 0);
    clock.advance(1);
    const r = await slow;
    assert.equal(r.putMessageStatus, PutMessageStatus.FLUSH_DISK_TIMEOUT);
    assert.ok(r.isOk(), 'the message is stored, only its flush is late');
    assert.ok(cl.getMessage(0, r.appendMessageResult!.wroteBytes));
    io.holdSyncs = false;
    io.releaseSyncs();
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.PUT_OK);
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: a message sent without WAIT is acknowledged once written', async () => {
  const { cl, io, done } = open({ flushDiskType: 'SYNC_FLUSH' });
  try {
    io.holdSyncs = true;
    const r = await cl.putMessage(inner({ waitStoreMsgOK: false }));
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    await until(() => io.heldSyncs === 1);
    assert.equal(cl.getFlushedWhere(), 0, 'but it is flushed soon after');
  } finally {
    await done();
  }
});

for (const writeMode of ['sync', 'async'] as const) {
  test(`a failed write (${writeMode} writes) fails its appends and refuses later ones`, async () => {
    const { cl, io, logs, done } = open({ flushDiskType: 'ASYNC_FLUSH' }, { writeMode });
    try {
      assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.PUT_OK);
      const good = cl.getMaxOffset();
      io.failNextWrite = ioError('EIO', 'write');
      const failed = await Promise.all([cl.putMessage(inner()), cl.putMessage(inner())]);
      assert.deepEqual(
        failed.map((r) => r.putMessageStatus),
        [PutMessageStatus.UNKNOWN_ERROR, PutMessageStatus.UNKNOWN_ERROR],
      );
      assert.equal(cl.getMaxOffset(), good, 'nothing counts as written');
      const writes = io.writes;
      assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
      assert.equal(io.writes, writes, 'no later write reaches the disk');
      assert.match(
        cl.getWriteError()?.message ?? '',
        new RegExp(`commitlog/00000000000000000000: write of \\d+ bytes at offset ${good} failed: EIO`),
      );
      assert.equal(cl.isWritable(), false);
      assert.ok(logs.some((l) => l.level === 'error' && /refusing further appends/.test(l.msg)));
    } finally {
      await done();
    }
  });
}

test('a failed fdatasync under SYNC_FLUSH times the waiting appends out and stops appends', async () => {
  const { cl, io, done } = open({ flushDiskType: 'SYNC_FLUSH' });
  try {
    io.failNextSync = ioError('EIO', 'fdatasync');
    const r = await cl.putMessage(inner());
    assert.equal(r.putMessageStatus, PutMessageStatus.FLUSH_DISK_TIMEOUT);
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    assert.match(cl.getWriteError()?.message ?? '', /fdatasync .* failed: EIO/);
  } finally {
    await done();
  }
});

test('asynchronous writes: appends queue behind the running write, and a stuck write makes them OS_PAGECACHE_BUSY', async () => {
  const { cl, clock, io, done } = open(
    { flushDiskType: 'SYNC_FLUSH' },
    { writeMode: 'async', osPageCacheBusyTimeOutMills: 1000 },
  );
  try {
    io.holdWrites = true;
    const first = cl.putMessage(inner({ body: 'first' }));
    await until(() => io.writes === 1);
    const queued = [cl.putMessage(inner({ body: 'q1' })), cl.putMessage(inner({ body: 'q2' }))];
    clock.advance(1001);
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.OS_PAGECACHE_BUSY);
    io.holdWrites = false;
    io.releaseWrites();
    assert.equal((await first).putMessageStatus, PutMessageStatus.PUT_OK);
    const rest = await Promise.all(queued);
    assert.deepEqual(
      rest.map((r) => r.appendMessageResult?.logicsOffset),
      [1n, 2n],
    );
    assert.equal(io.writes, 2, 'the two queued appends went out in one write');
  } finally {
    await done();
  }
});

test('shutdown writes what is queued, flushes it, and closes the files', async () => {
  const { root, cleanup } = tempStoreDir();
  const io = new TestIO();
  const cl = new CommitLog(smallConfig(root), { io });
  try {
    cl.recoverNormally();
    cl.start();
    const puts = [cl.putMessage(inner()), cl.putMessage(inner())];
    await cl.shutdown();
    assert.ok((await Promise.all(puts)).every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    assert.equal(cl.getFlushedWhere(), cl.getMaxOffset());
    assert.ok(io.fdatasyncs >= 1);
    assert.equal(cl.mappedFileQueue.getLastMappedFile()?.isAvailable(), false);
  } finally {
    cleanup();
  }
});
