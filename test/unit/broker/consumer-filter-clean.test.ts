/** The broker forgets dead consumer filters on upstream's 10 s schedule, once dead for filterDataCleanTimeSpan. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONSUMER_FILTER_CLEAN_INTERVAL, createBroker } from '../../../src/broker/broker-controller.js';
import { DEFAULT_FILTER_DATA_CLEAN_TIME_SPAN } from '../../../src/filter/consumer-filter-manager.js';
import { ManualClock, MemoryFileIO, quiet, TEST_ENV } from './helpers.js';

test('a dead SQL92 filter is dropped by the periodic clean after filterDataCleanTimeSpan, not before', async () => {
  const root = mkdtempSync(join(tmpdir(), 'rmq-filter-clean-'));
  const clock = new ManualClock(1_700_000_000_000);
  const broker = createBroker({
    config: { storePathRootDir: root, listenPort: 0, listenHost: '127.0.0.1', brokerIP1: '127.0.0.1' },
    env: TEST_ENV,
    clock,
    logger: quiet,
    configFileIO: new MemoryFileIO(),
  });
  try {
    await broker.start();
    const sub = {
      topic: 'T',
      subString: 'a > 1',
      tagsSet: [],
      codeSet: [],
      subVersion: 1n,
      expressionType: 'SQL92',
      classFilterMode: false,
    };
    broker.consumerFilterManager.register('g', [sub]);
    assert.ok(broker.consumerFilterManager.get('T', 'g'));
    broker.consumerFilterManager.unregister('g');
    clock.advance(DEFAULT_FILTER_DATA_CLEAN_TIME_SPAN - CONSUMER_FILTER_CLEAN_INTERVAL);
    assert.ok(broker.consumerFilterManager.get('T', 'g'), 'still kept before the time span');
    clock.advance(2 * CONSUMER_FILTER_CLEAN_INTERVAL);
    assert.equal(broker.consumerFilterManager.get('T', 'g'), undefined);
  } finally {
    await broker.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
});
