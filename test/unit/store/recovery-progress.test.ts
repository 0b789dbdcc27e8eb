/**
 * Recovery progress: a recovery over several commit-log files reports how far it is at most once per
 * recoveryProgressInterval of the store's clock, ends with a `done` report at the recovered offset,
 * and stays silent when the scan is quicker than the interval or nobody listens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { type RecoveryProgress, RecoveryProgressMeter } from '../../../src/store/recovery-progress.js';
import { inner, smallConfig, tempStoreDir } from './commit-log-support.js';

const FILE = 16 * 1024;
const quiet = createLogger('test', { level: 'silent' });

/** A log over several 16 KiB files; returns where its data ends. */
async function buildLog(root: string): Promise<number> {
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), { logger: quiet });
  cl.recoverNormally();
  for (let i = 0; i < 40; i++) {
    const r = await cl.putMessage(inner({ body: `${i}:`.padEnd(1000, 'x'), queueId: i % 2 }));
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
  }
  const end = cl.getMaxOffset();
  await cl.shutdown();
  return end;
}

function reopen(
  root: string,
  reports: RecoveryProgress[],
  interval: number | undefined,
  clock = new ManualClock(),
) {
  return new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), {
    logger: quiet,
    clock,
    onRecoveryProgress: (p) => reports.push({ ...p }),
    ...(interval === undefined ? {} : { recoveryProgressInterval: interval }),
  });
}

test('a recovery over several files reports its progress and ends with done at the recovered offset', async () => {
  const { root, cleanup } = tempStoreDir('rmq-recovery-progress-');
  try {
    const end = await buildLog(root);
    assert.ok(end > 2 * FILE, `the log spans files (${end} bytes)`);
    const reports: RecoveryProgress[] = [];
    const cl = reopen(root, reports, 0);
    const result = cl.recoverAbnormally();
    assert.equal(result.processOffset, end);
    assert.ok(reports.length >= 3, `one report per file read at least: ${reports.length}`);
    for (let i = 1; i < reports.length; i++) {
      assert.ok(reports[i]!.scannedBytes >= reports[i - 1]!.scannedBytes, 'never backwards');
    }
    const last = reports.at(-1)!;
    assert.equal(last.done, true);
    assert.equal(last.scannedBytes, end);
    assert.ok(last.totalBytes >= end);
    assert.ok(reports.slice(0, -1).every((r) => !r.done && r.scannedBytes <= r.totalBytes));
    await cl.shutdown();
  } finally {
    cleanup();
  }
});

test('a recovery quicker than the interval reports nothing, nor one nobody listens to', async () => {
  const { root, cleanup } = tempStoreDir('rmq-recovery-progress-');
  try {
    const end = await buildLog(root);
    const reports: RecoveryProgress[] = [];
    // The default interval (1 s) on a clock that does not move during the scan.
    const cl = reopen(root, reports, undefined);
    assert.equal(cl.recoverAbnormally().processOffset, end);
    assert.deepEqual(reports, []);
    await cl.shutdown();
    const unwatched = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), { logger: quiet });
    assert.equal(unwatched.recoverAbnormally().processOffset, end);
    await unwatched.shutdown();
  } finally {
    cleanup();
  }
});

test('the meter reports at most once per interval and computes bytes from where the scan began', () => {
  let now = 1000;
  const reports: RecoveryProgress[] = [];
  const meter = new RecoveryProgressMeter(
    4096,
    10_000,
    () => now,
    100,
    (p) => reports.push(p),
  );
  meter.tick(5000);
  now += 60;
  meter.tick(6000);
  assert.deepEqual(reports, [], 'not before the interval');
  now += 40;
  meter.tick(7096);
  assert.deepEqual(reports, [{ scannedBytes: 3000, totalBytes: 10_000, elapsedMs: 100, done: false }]);
  now += 99;
  meter.tick(8000);
  assert.equal(reports.length, 1);
  now += 1;
  meter.tick(9096);
  meter.finish(20_096);
  assert.deepEqual(reports.slice(1), [
    { scannedBytes: 5000, totalBytes: 10_000, elapsedMs: 200, done: false },
    { scannedBytes: 16_000, totalBytes: 16_000, elapsedMs: 200, done: true },
  ]);
});
