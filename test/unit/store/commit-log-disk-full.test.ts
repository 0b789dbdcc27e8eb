import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { offset2FileName } from '../../../src/store/mapped-file.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { inner, ioError, smallConfig, TestIO, tempStoreDir } from './commit-log-support.js';

const T0 = 1_700_000_000_000;
const RETRY = 5_000;

/** Writes part of the next write, then refuses the rest as a file-size limit (or a full disk) does. */
class SpaceIO extends TestIO {
  partialThenRefuse: string | undefined;
  private refuseNext: string | undefined;
  override writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
    if (this.refuseNext !== undefined) {
      const code = this.refuseNext;
      this.refuseNext = undefined;
      this.writes++;
      throw ioError(code, 'write');
    }
    if (this.partialThenRefuse !== undefined && length > 1) {
      this.refuseNext = this.partialThenRefuse;
      this.partialThenRefuse = undefined;
      return super.writeSync(fd, buffer, offset, Math.floor(length / 2), position);
    }
    return super.writeSync(fd, buffer, offset, length, position);
  }
}

function recordBytes(cl: CommitLog, offset: number): number {
  return cl.getMessage(offset, 4)!.readInt32BE(0);
}

for (const code of ['EFBIG', 'ENOSPC']) {
  test(`a write refused for space (${code}) is refused with SERVICE_NOT_AVAILABLE, logged once, and retried later`, async () => {
    const { root, cleanup } = tempStoreDir();
    const clock = new ManualClock(T0);
    const io = new SpaceIO();
    const logs: LogRecord[] = [];
    const cl = new CommitLog(smallConfig(root), {
      clock,
      io,
      diskFullRetryInterval: RETRY,
      logger: createLogger('test', { level: 'debug', sink: (r) => logs.push(r) }),
    });
    cl.recoverNormally();
    try {
      const acked = [];
      for (let i = 0; i < 3; i++) acked.push(await cl.putMessage(inner({ body: `before-${i}` })));
      assert.ok(acked.every((r) => r.putMessageStatus === PutMessageStatus.PUT_OK));
      const end = cl.getMaxOffset();

      io.partialThenRefuse = code;
      const refused = await Promise.all([
        cl.putMessage(inner({ body: 'lost-1' })),
        cl.putMessage(inner({ body: 'lost-2' })),
      ]);
      assert.deepEqual(
        refused.map((r) => r.putMessageStatus),
        [PutMessageStatus.SERVICE_NOT_AVAILABLE, PutMessageStatus.SERVICE_NOT_AVAILABLE],
      );
      assert.equal(cl.getMaxOffset(), end, 'the half-written bytes are not part of the log');
      const file = join(root, 'commitlog', offset2FileName(0));
      const past = readFileSync(file).subarray(end, end + 2 * recordBytes(cl, 0));
      assert.ok(
        past.every((b) => b === 0),
        'no refused record is left past the end for recovery to find',
      );
      const writes = io.writes;
      assert.equal(
        (await cl.putMessage(inner({ body: 'too-soon' }))).putMessageStatus,
        PutMessageStatus.SERVICE_NOT_AVAILABLE,
      );
      assert.equal(io.writes, writes, 'refused without a write while waiting');
      const errors = logs.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, 'one log line for the episode');
      assert.match(errors[0]!.msg, /disk full/);
      assert.match(String(errors[0]!.fields.error), new RegExp(code));

      clock.advance(RETRY);
      const after = await cl.putMessage(inner({ body: 'after' }));
      assert.equal(after.putMessageStatus, PutMessageStatus.PUT_OK);
      assert.equal(after.appendMessageResult?.wroteOffset, BigInt(end), 'written over the refused bytes');
      assert.equal(after.appendMessageResult?.logicsOffset, 3n, 'the queue has no gap');
      assert.ok(logs.some((l) => l.level === 'info' && /succeed again/.test(l.msg)));
      assert.equal(cl.getWriteError(), undefined);

      const bodies: string[] = [];
      for (let pos = 0; pos < cl.getMaxOffset(); ) {
        const size = cl.getMessage(pos, 4)!.readInt32BE(0);
        const m = decodeMessage(cl.getMessage(pos, size)!, 0, { checkCRC: true });
        bodies.push(m.body.toString());
        pos += size;
      }
      assert.deepEqual(bodies, ['before-0', 'before-1', 'before-2', 'after']);
    } finally {
      await cl.shutdown();
      cleanup();
    }
  });
}

test('EIO on a write still stops appends for good', async () => {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(T0);
  const io = new SpaceIO();
  const cl = new CommitLog(smallConfig(root), {
    clock,
    io,
    diskFullRetryInterval: RETRY,
    logger: createLogger('test', { level: 'silent' }),
  });
  cl.recoverNormally();
  try {
    io.partialThenRefuse = 'EIO';
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.UNKNOWN_ERROR);
    clock.advance(RETRY);
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    assert.match(cl.getWriteError()?.message ?? '', /EIO/);
  } finally {
    await cl.shutdown();
    cleanup();
  }
});
