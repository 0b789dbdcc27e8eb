import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { DEFAULT_MESSAGE_STORE_CONFIG, messageStoreConfig, StorePath } from '../../../src/store/config.js';

test('ManualClock runs due timers in time order and skips cancelled ones', () => {
  const clock = new ManualClock(1000);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
  const cancelled = clock.setTimeout(() => fired.push('never'), 5);
  clock.setTimeout(() => {
    fired.push(`a@${clock.now()}`);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 5);
  }, 10);
  cancelled.cancel();
  clock.advance(12);
  assert.deepEqual(fired, ['a@1010']);
  clock.advance(100);
  assert.deepEqual(fired, ['a@1010', 'c@1015', 'b@1020']);
  assert.equal(clock.now(), 1112);
});

test('store settings carry upstream defaults and paths', () => {
  const config = messageStoreConfig({ storePathRootDir: '/tmp/x', mappedFileSizeCommitLog: 4096 });
  assert.equal(config.mappedFileSizeCommitLog, 4096);
  assert.equal(DEFAULT_MESSAGE_STORE_CONFIG.mappedFileSizeCommitLog, 1073741824);
  assert.equal(config.mappedFileSizeConsumeQueue, 6_000_000);
  assert.equal(config.flushIntervalCommitLog, 500);
  assert.equal(config.syncFlushTimeout, 5000);
  assert.equal(config.fileReservedTime, 72);
  assert.equal(config.deleteWhen, '04');
  assert.equal(config.diskMaxUsedSpaceRatio, 75);
  assert.equal(StorePath.consumeQueue('/s'), '/s/consumequeue');
});
