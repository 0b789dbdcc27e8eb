import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { CleanCommitLogService, isItTimeToDo } from '../../../src/store/clean-commit-log-service.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { inner, smallConfig, tempStoreDir, until } from './commit-log-support.js';

const HOUR = 3_600_000;
const quiet = createLogger('t', { level: 'silent' });

async function filledLog(root: string, clock: ManualClock, files: number): Promise<CommitLog> {
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: 4096, fileReservedTime: 72 }), {
    clock,
    logger: quiet,
  });
  cl.recoverNormally();
  while (cl.mappedFileQueue.getMappedFiles().length < files) {
    assert.equal(
      (await cl.putMessage(inner({ body: 'x'.repeat(1000) }))).putMessageStatus,
      PutMessageStatus.PUT_OK,
    );
  }
  return cl;
}

function age(cl: CommitLog, clock: ManualClock, hoursByFile: number[]): void {
  cl.mappedFileQueue.getMappedFiles().forEach((f, i) => {
    const t = new Date(clock.now() - (hoursByFile[i] ?? 0) * HOUR);
    fs.utimesSync(f.fileName, t, t);
  });
}

test('deleteExpiredFile removes files older than the reserved time, never the active one', async () => {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(Date.now());
  const cl = await filledLog(root, clock, 4);
  try {
    age(cl, clock, [100, 100, 100, 100]);
    const max = cl.getMaxOffset();
    assert.equal(await cl.deleteExpiredFile(72 * HOUR, 0, 0, false), 3);
    assert.equal(cl.getMinOffset(), 3 * 4096);
    assert.equal(cl.getMaxOffset(), max);
    assert.equal(cl.getMessage(0, 10), undefined, 'deleted data is gone');
    assert.equal(cl.pickupStoreTimestamp(0, 100), -1);
    assert.equal((await cl.putMessage(inner())).putMessageStatus, PutMessageStatus.PUT_OK);
  } finally {
    await cl.shutdown();
    cleanup();
  }
});

test('the clean service deletes at the deleteWhen hour, when the disk is full, or when asked', async () => {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(Date.now());
  const cl = await filledLog(root, clock, 6);
  let used = 0.5;
  let hour = 3;
  const deletedCalls: Array<[number, number]> = [];
  const service = new CleanCommitLogService(
    cl,
    { storePathRootDir: root, fileReservedTime: 72, deleteWhen: '04;16', diskMaxUsedSpaceRatio: 75 },
    {
      clock,
      logger: quiet,
      cleanResourceInterval: 10_000,
      deleteCommitLogFilesInterval: 0,
      diskUsedRatio: () => used,
      hourOfDay: () => hour,
      onDeleted: (count, min) => deletedCalls.push([count, min]),
    },
  );
  try {
    age(cl, clock, [100, 10, 100, 100, 100, 0]);
    // 03:00, disk at half: nothing to do.
    assert.equal(await service.run(), 0);
    // 04:00: the first file is expired; the second (10 h old) stops the walk.
    hour = 4;
    assert.equal(await service.run(), 1);
    assert.deepEqual(deletedCalls, [[1, 4096]]);
    // 05:00 with the disk above diskMaxUsedSpaceRatio but below the forced ratio: still only expired files.
    hour = 5;
    used = 0.8;
    assert.equal(await service.run(), 0);
    assert.equal(service.isDiskFull(), false);
    // Above 85 %: everything but the active file goes, whatever its age.
    used = 0.86;
    assert.equal(await service.run(), 4);
    assert.equal(cl.mappedFileQueue.getMappedFiles().length, 1);
    // Above 90 %: the disk is reported full.
    used = 0.95;
    await service.run();
    assert.equal(service.isDiskFull(), true);
    used = 0.5;
    service.isSpaceToDelete();
    assert.equal(service.isDiskFull(), false);
  } finally {
    await service.shutdown();
    await cl.shutdown();
    cleanup();
  }
});

test('manual deletion and the periodic timer', async () => {
  const { root, cleanup } = tempStoreDir();
  const clock = new ManualClock(Date.now());
  const cl = await filledLog(root, clock, 3);
  let rounds = 0;
  const service = new CleanCommitLogService(
    cl,
    { storePathRootDir: root, fileReservedTime: 72, deleteWhen: '04', diskMaxUsedSpaceRatio: 75 },
    {
      clock,
      logger: quiet,
      deleteCommitLogFilesInterval: 0,
      diskUsedRatio: () => {
        rounds++;
        return 0.1;
      },
      hourOfDay: () => 12,
    },
  );
  try {
    age(cl, clock, [100, 100, 0]);
    service.start();
    clock.advance(9_999);
    assert.equal(rounds, 0);
    clock.advance(1);
    await until(() => rounds === 1);
    assert.equal(cl.mappedFileQueue.getMappedFiles().length, 3, 'not the hour, disk fine');
    service.executeDeleteFilesManually();
    clock.advance(10_000);
    await until(() => cl.mappedFileQueue.getMappedFiles().length === 1);
    assert.ok(isItTimeToDo('04;16', 16));
    assert.ok(!isItTimeToDo('04;16', 5));
    assert.ok(!isItTimeToDo('', 0));
  } finally {
    await service.shutdown();
    await cl.shutdown();
    cleanup();
  }
});
