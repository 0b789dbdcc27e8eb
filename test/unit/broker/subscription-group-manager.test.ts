/** SubscriptionGroupManager with in-memory files: built-in groups, auto-creation, updates, deletes, the file. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brokerConfig } from '../../../src/broker/broker-config.js';
import {
  SubscriptionGroupManager,
  validateGroup,
} from '../../../src/broker/subscription/subscription-group-manager.js';
import { ValidationError } from '../../../src/common/errors.js';
import {
  createSubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
} from '../../../src/common/protocol/subscription-group-config.js';
import { ManualClock, MemoryFileIO, quiet, TEST_ENV } from './helpers.js';

const FILE = '/mem/store/config/subscriptionGroup.json';

function setup(autoCreateSubscriptionGroup = true) {
  const clock = new ManualClock();
  const io = new MemoryFileIO();
  const config = brokerConfig({ storePathRootDir: '/mem/store', autoCreateSubscriptionGroup }, TEST_ENV);
  return { sgm: new SubscriptionGroupManager({ config, clock, logger: quiet, io }), io, clock, config };
}

describe('SubscriptionGroupManager', () => {
  test('the built-in groups of 4.9.8', () => {
    const { sgm } = setup();
    assert.deepEqual([...sgm.subscriptionGroupTable.keys()].sort(), [
      'CID_ONS-HTTP-PROXY',
      'CID_ONSAPI_OWNER',
      'CID_ONSAPI_PERMISSION',
      'CID_ONSAPI_PULL',
      'FILTERSRV_CONSUMER',
      'SELF_TEST_C_GROUP',
      'TOOLS_CONSUMER',
    ]);
    assert.deepEqual(
      sgm.subscriptionGroupTable.get('TOOLS_CONSUMER'),
      createSubscriptionGroupConfig('TOOLS_CONSUMER'),
    );
  });

  test('a used group is created with the defaults and persisted', async () => {
    const { sgm, io, clock } = setup();
    clock.advance(10);
    const g = sgm.findSubscriptionGroupConfig('cg1');
    assert.deepEqual(g, createSubscriptionGroupConfig('cg1'));
    assert.equal(sgm.findSubscriptionGroupConfig('cg1'), g);
    assert.deepEqual(sgm.dataVersion, { counter: 1n, timestamp: BigInt(clock.now()) });
    await sgm.flushed();
    const onDisk = decodeSubscriptionGroupWrapper(io.files.get(FILE) ?? '', { timestamp: 0n });
    assert.deepEqual(onDisk.subscriptionGroupTable.get('cg1'), g);
    assert.match(io.files.get(FILE) ?? '', /^\{\n\t"dataVersion":/);
  });

  test('without auto-create only CID_RMQ_SYS_ groups are created', () => {
    const { sgm } = setup(false);
    assert.equal(sgm.findSubscriptionGroupConfig('cg1'), undefined);
    assert.ok(sgm.findSubscriptionGroupConfig('CID_RMQ_SYS_TRANS'));
  });

  test('update validates the name and the retry queues before changing anything', () => {
    const { sgm } = setup();
    for (const bad of ['', 'a b', 'g/../x', 'x'.repeat(256)]) {
      assert.throws(
        () => sgm.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(bad)),
        ValidationError,
        bad,
      );
    }
    assert.throws(
      () => sgm.updateSubscriptionGroupConfig(createSubscriptionGroupConfig('g', { retryQueueNums: -1 })),
      /retryQueueNums/,
    );
    assert.equal(sgm.dataVersion.counter, 0n);
    sgm.updateSubscriptionGroupConfig(createSubscriptionGroupConfig('g', { retryQueueNums: 3 }));
    assert.equal(sgm.subscriptionGroupTable.get('g')?.retryQueueNums, 3);
    assert.equal(sgm.dataVersion.counter, 1n);
  });

  test('delete and disable', () => {
    const { sgm } = setup();
    sgm.updateSubscriptionGroupConfig(createSubscriptionGroupConfig('g'));
    sgm.disableConsume('g');
    assert.equal(sgm.subscriptionGroupTable.get('g')?.consumeEnable, false);
    assert.equal(sgm.deleteSubscriptionGroupConfig('g'), true);
    assert.equal(sgm.deleteSubscriptionGroupConfig('g'), false);
    assert.equal(sgm.dataVersion.counter, 3n);
  });

  test('load merges the file and takes its version', async () => {
    const { sgm, io } = setup();
    io.files.set(
      FILE,
      '{"dataVersion":{"counter":4,"timestamp":99},"subscriptionGroupTable":{"cg":{"groupName":"cg","retryMaxTimes":3}}}',
    );
    await sgm.load();
    assert.equal(sgm.subscriptionGroupTable.get('cg')?.retryMaxTimes, 3);
    assert.ok(sgm.subscriptionGroupTable.get('TOOLS_CONSUMER'));
    assert.deepEqual(sgm.dataVersion, { counter: 4n, timestamp: 99n });
  });

  test('validateGroup', () => {
    validateGroup('CID_ok-1|%');
    assert.throws(() => validateGroup(undefined), /blank/);
    assert.throws(() => validateGroup('g\u00e9'), /illegal characters/);
  });
});
