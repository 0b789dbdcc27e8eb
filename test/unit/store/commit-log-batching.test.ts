/**
 * How the commit log groups appends into writes: one write for the appends of an event-loop turn,
 * appenders that append again on each acknowledgement served without a loop turn per write (but with
 * a bounded number of writes per turn), one group-commit request per write under SYNC_FLUSH, and a
 * failed write failing everything in it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { CommitLog, type CommitLogOptions } from '../../../src/store/commit-log.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { GroupCommitService } from '../../../src/store/flush-service.js';
import { MappedFileQueue } from '../../../src/store/mapped-file-queue.js';
import { type PutMessageResult, PutMessageStatus } from '../../../src/store/put-message-result.js';
import {
  BORN_HOST,
  inner,
  ioError,
  STORE_HOST,
  smallConfig,
  TestIO,
  tempStoreDir,
  until,
} from './commit-log-support.js';

const T0 = 1_700_000_000_000;
const quiet = createLogger('test', { level: 'error', sink: () => undefined });

function open(overrides: Partial<MessageStoreConfig> = {}, options: CommitLogOptions = {}) {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(T0);
  const io = new TestIO();
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: 1024 * 1024, ...overrides }), {
    clock,
    io,
    logger: quiet,
    ...options,
  });
  const dispatched: DispatchRequest[] = [];
  cl.addDispatcher({ dispatch: (r) => dispatched.push(r) });
  cl.recoverNormally();
  cl.start();
  return {
    cl,
    clock,
    io,
    dispatched,
    done: async () => {
      io.holdSyncs = false;
      io.releaseSyncs();
      await cl.shutdown();
      cleanup();
    },
  };
}

function batch(count: number) {
  const messages = Array.from(
    { length: count },
    (_, i) => new Message('TopicTest', Buffer.from(`batch-${i}`), { tags: 'B' }),
  );
  return {
    topic: 'TopicTest',
    queueId: 1,
    body: encodeBatch(messages),
    propertiesString: '',
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_123n,
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
  };
}

const statuses = (rs: PutMessageResult[]): string[] => rs.map((r) => r.putMessageStatus);

test("a turn's messages and batches go out in one write, at consecutive offsets", async () => {
  const { cl, io, dispatched, done } = open();
  try {
    const before = io.writes;
    const results = await Promise.all([
      cl.putMessage(inner({ body: 'one' })),
      cl.putMessages(batch(3)),
      cl.putMessage(inner({ body: 'two', queueId: 1 })),
      ...Array.from({ length: 40 }, (_, i) => cl.putMessage(inner({ body: `m${i}` }))),
    ]);
    assert.equal(io.writes - before, 1);
    assert.ok(results.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    let expected = 0n;
    for (const r of results) {
      assert.equal(r.appendMessageResult?.wroteOffset, expected);
      expected += BigInt(r.appendMessageResult?.wroteBytes ?? 0);
    }
    assert.equal(cl.getMaxOffset(), Number(expected));
    // Queue 1 got the batch's three offsets, then the single message's.
    assert.deepEqual(
      dispatched.filter((d) => d.queueId === 1).map((d) => d.consumeQueueOffset),
      [0n, 1n, 2n, 3n],
    );
    assert.equal(
      cl.forEachRecord(0, () => undefined),
      cl.getMaxOffset(),
    );
  } finally {
    await done();
  }
});

test('an appender that appends again on each ack is not held back a loop turn per write, yet yields to the loop', async () => {
  const { cl, io, done } = open();
  try {
    await cl.putMessage(inner());
    const writesBefore = io.writes;
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    let acked = 0;
    let probeSeenAt = -1;
    for (let i = 0; i < 600; i++) {
      const r = await cl.putMessage(inner({ body: `n${i}` }));
      assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
      acked++;
      if (i === 0) {
        setImmediate(() => {
          probeSeenAt = acked;
        });
      }
    }
    ticking = false;
    assert.equal(io.writes - writesBefore, 600, 'each append was its own write');
    // Without continuing in the acknowledgements' microtasks, every write would cost a loop turn.
    assert.ok(turns < 60, `${turns} loop turns for 600 writes`);
    // With a bounded run of writes per turn, an immediate queued meanwhile runs soon.
    assert.ok(probeSeenAt > 0 && probeSeenAt <= 200, `the loop got a turn only after ${probeSeenAt} acks`);
  } finally {
    await done();
  }
});

test('appends from separate callbacks of one loop turn still share a write after a continued drain', async () => {
  const { cl, io, done } = open();
  try {
    const writesBefore = io.writes;
    const all: Array<Promise<PutMessageResult>> = [];
    // Scheduled from an acknowledgement's continuation, as an I/O callback of the next turn would be.
    await cl.putMessage(inner()).then(
      () =>
        new Promise<void>((resolve) => {
          setImmediate(() => {
            for (let i = 0; i < 5; i++) all.push(cl.putMessage(inner({ body: `a${i}` })));
          });
          setImmediate(() => {
            for (let i = 0; i < 5; i++) all.push(cl.putMessage(inner({ body: `b${i}` })));
            resolve();
          });
        }),
    );
    const results = await Promise.all(all);
    assert.ok(results.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
    assert.equal(io.writes - writesBefore, 2, 'the first append, then the ten together');
  } finally {
    await done();
  }
});

for (const flushDiskType of ['ASYNC_FLUSH', 'SYNC_FLUSH'] as const) {
  for (const writeMode of ['sync', 'async'] as const) {
    test(`${flushDiskType}, ${writeMode} writes: a failed write fails every append in it and the log refuses later ones`, async () => {
      const { cl, io, done } = open({ flushDiskType }, { writeMode });
      try {
        assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.PUT_OK);
        const good = cl.getMaxOffset();
        const syncsBefore = io.fdatasyncs;
        io.failNextWrite = ioError('EIO', 'write');
        const writesBefore = io.writes;
        const failed = await Promise.all([
          ...Array.from({ length: 20 }, (_, i) => cl.putMessage(inner({ body: `f${i}` }))),
          cl.putMessages(batch(4)),
          cl.putMessage(inner({ waitStoreMsgOK: false })),
        ]);
        assert.equal(io.writes - writesBefore, 1, 'all of them were in the one failed write');
        assert.deepEqual(statuses(failed), Array(22).fill(PutMessageStatus.UNKNOWN_ERROR));
        assert.equal(cl.getMaxOffset(), good);
        assert.equal(io.fdatasyncs, syncsBefore, 'nothing to wait for: no fdatasync was asked for');
        assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
        assert.equal(io.writes - writesBefore, 1);
        assert.match(cl.getWriteError()?.message ?? '', /write of \d+ bytes at offset \d+ failed: EIO/);
      } finally {
        await done();
      }
    });
  }
}

test('a failed write inside a run of continued writes stops the run', async () => {
  const { cl, io, done } = open();
  try {
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      if (i === 5) io.failNextWrite = ioError('EIO', 'write');
      seen.push((await cl.putMessage(inner({ body: `c${i}` }))).putMessageStatus);
    }
    assert.deepEqual(seen, [
      ...Array(5).fill(PutMessageStatus.PUT_OK),
      PutMessageStatus.UNKNOWN_ERROR,
      ...Array(4).fill(PutMessageStatus.SERVICE_NOT_AVAILABLE),
    ]);
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: the waiting appends of one write share one group-commit request; WAIT=false ones do not wait', async () => {
  const { cl, io, done } = open({ flushDiskType: 'SYNC_FLUSH' });
  try {
    io.holdSyncs = true;
    const settled: string[] = [];
    const waiting = Array.from({ length: 10 }, (_, i) =>
      cl.putMessage(inner({ body: `w${i}` })).then((r) => {
        settled.push(`w${i}`);
        return r;
      }),
    );
    const quick = cl.putMessage(inner({ body: 'quick', waitStoreMsgOK: false })).then((r) => {
      settled.push('quick');
      return r;
    });
    assert.equal((await quick).putMessageStatus, PutMessageStatus.PUT_OK);
    await until(() => io.heldSyncs === 1);
    assert.deepEqual(settled, ['quick'], 'written, not yet durable');
    io.holdSyncs = false;
    io.releaseSyncs();
    const results = await Promise.all(waiting);
    assert.deepEqual(statuses(results), Array(10).fill(PutMessageStatus.PUT_OK));
    assert.equal(cl.groupCommitSyncCount, 1);
    assert.equal(cl.getFlushedWhere(), cl.getMaxOffset());
  } finally {
    await done();
  }
});

test('SYNC_FLUSH: when the fdatasync outlasts syncFlushTimeout every waiting append of the write times out', async () => {
  const { cl, clock, io, done } = open({ flushDiskType: 'SYNC_FLUSH', syncFlushTimeout: 5000 });
  try {
    io.holdSyncs = true;
    const puts = Array.from({ length: 8 }, (_, i) => cl.putMessage(inner({ body: `t${i}` })));
    await io.nextSync();
    clock.advance(5000);
    const results = await Promise.all(puts);
    assert.deepEqual(statuses(results), Array(8).fill(PutMessageStatus.FLUSH_DISK_TIMEOUT));
    assert.ok(
      results.every((r) => r.isOk()),
      'stored, only late',
    );
  } finally {
    await done();
  }
});

test('a finished group-commit request lets go of what it acknowledged', async () => {
  const { root, cleanup } = tempStoreDir();
  const queue = new MappedFileQueue(root, 4096);
  const service = new GroupCommitService(queue, new ManualClock(T0), 5000, {
    onFlushed: () => undefined,
    onFailure: () => undefined,
  });
  try {
    queue.createNextMappedFile(0).writeSync(0, Buffer.from('x'));
    queue.getLastMappedFile()!.setWrotePosition(1);
    let req: ReturnType<GroupCommitService['newRequest']> | undefined;
    const status = await new Promise<string>((resolve) => {
      req = service.newRequest(1, resolve);
      service.putRequest(req);
    });
    assert.equal(status, PutMessageStatus.PUT_OK);
    assert.ok(req !== undefined);
    assert.equal(req.done, true);
    assert.equal(req.complete, undefined);
  } finally {
    await service.shutdown();
    queue.shutdown();
    cleanup();
  }
});

test('SYNC_FLUSH with SYNC_MASTER: the slave wait begins at the write, runs with the flush, and a failing status wins as upstream', async () => {
  const { cl, clock, io, done } = open({ flushDiskType: 'SYNC_FLUSH', syncFlushTimeout: 5000 });
  const asked: number[] = [];
  const answers: Array<(status: PutMessageStatus) => void> = [];
  cl.setReplicaWait((nextOffset) => {
    asked.push(nextOffset);
    return new Promise((resolve) => answers.push(resolve));
  });
  try {
    io.holdSyncs = true;
    let answered = false;
    const first = cl.putMessage(inner({ body: 'a' })).then((r) => {
      answered = true;
      return r;
    });
    await io.nextSync();
    assert.deepEqual(asked, [cl.getMaxOffset()], 'asked for the slave while the fdatasync is still held');
    answers[0]!(PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'the flush is still going on');
    io.releaseSyncs();
    const a = await first;
    assert.equal(a.putMessageStatus, PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
    assert.ok(a.isOk(), 'stored all the same');

    // One write, one flush that outlasts syncFlushTimeout, two slave answers.
    const second = cl.putMessage(inner({ body: 'b' }));
    const third = cl.putMessage(inner({ body: 'c' }));
    await io.nextSync();
    answers[1]!(PutMessageStatus.PUT_OK);
    answers[2]!(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    clock.advance(5000);
    assert.equal((await second).putMessageStatus, PutMessageStatus.FLUSH_DISK_TIMEOUT);
    assert.equal(
      (await third).putMessageStatus,
      PutMessageStatus.SLAVE_NOT_AVAILABLE,
      'the slave status last',
    );

    io.holdSyncs = false;
    io.releaseSyncs();
    const unwaited = await cl.putMessage(inner({ body: 'd', waitStoreMsgOK: false }));
    assert.equal(unwaited.putMessageStatus, PutMessageStatus.PUT_OK);
    assert.equal(asked.length, 3, 'waitStoreMsgOK=false waits for nobody');
  } finally {
    await done();
  }
});

test('ASYNC_FLUSH with SYNC_MASTER: a written append is answered when its slave wait is', async () => {
  const { cl, done } = open();
  let answer: ((status: PutMessageStatus) => void) | undefined;
  cl.setReplicaWait(() => new Promise((resolve) => (answer = resolve)));
  try {
    let answered = false;
    const put = cl.putMessage(inner()).then((r) => {
      answered = true;
      return r;
    });
    await until(() => answer !== undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false);
    answer!(PutMessageStatus.PUT_OK);
    assert.equal((await put).putMessageStatus, PutMessageStatus.PUT_OK);
  } finally {
    await done();
  }
});
