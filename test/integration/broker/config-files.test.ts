/**
 * The broker's metadata files on a real file system: files the official 4.9.8 broker wrote load in
 * ours, ours are written atomically (a .bak of the previous content) in the official pretty layout,
 * a corrupt file falls back to its .bak, offsets are persisted on the flushConsumerOffsetInterval
 * timer and on shutdown, and everything survives a restart.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { decodeTopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { goldenFile } from '../../golden-fixtures.js';
import { ManualClock, quiet, TEST_ENV } from '../../unit/broker/helpers.js';

const LIMIT = { timeout: 10_000 };
const dir = mkdtempSync(join(tmpdir(), 'rmq-broker-files-'));
let count = 0;
const running: BrokerController[] = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.shutdown()));
});

function storeRoot(): string {
  count++;
  return join(dir, `store-${count}`);
}

function broker(root: string, clock = new ManualClock()): BrokerController {
  const b = createBroker({
    config: {
      storePathRootDir: root,
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerName: 'broker-a',
      brokerIP1: '127.0.0.1',
    },
    env: TEST_ENV,
    clock,
    logger: quiet,
  });
  running.push(b);
  return b;
}

/** subscriptionGroup.json as the official broker writes it (fastjson pretty, tabs). */
const OFFICIAL_SUBSCRIPTION_GROUPS = [
  '{',
  '\t"dataVersion":{',
  '\t\t"counter":2,',
  '\t\t"timestamp":1700000000456',
  '\t},',
  '\t"subscriptionGroupTable":{',
  '\t\t"cg-custom":{',
  '\t\t\t"brokerId":1,',
  '\t\t\t"consumeBroadcastEnable":false,',
  '\t\t\t"consumeEnable":true,',
  '\t\t\t"consumeFromMinEnable":true,',
  '\t\t\t"groupName":"cg-custom",',
  '\t\t\t"notifyConsumerIdsChangedEnable":false,',
  '\t\t\t"retryMaxTimes":3,',
  '\t\t\t"retryQueueNums":2,',
  '\t\t\t"whichBrokerWhenConsumeSlowly":2',
  '\t\t}',
  '\t}',
  '}',
].join('\n');

function writeOfficialFiles(root: string): void {
  mkdirSync(join(root, 'config'), { recursive: true });
  writeFileSync(join(root, 'config', 'topics.json'), goldenFile('bodies/topic-config-wrapper.json'));
  writeFileSync(join(root, 'config', 'consumerOffset.json'), goldenFile('bodies/consumerOffset.pretty.json'));
  writeFileSync(join(root, 'config', 'subscriptionGroup.json'), OFFICIAL_SUBSCRIPTION_GROUPS);
}

describe('metadata files', () => {
  test('files written by the official broker load', LIMIT, async () => {
    const root = storeRoot();
    writeOfficialFiles(root);
    const b = broker(root);
    await b.start();
    const tcm = b.topicConfigManager;
    assert.deepEqual(
      tcm.selectTopicConfig('TopicTest'),
      createTopicConfig('TopicTest', { readQueueNums: 4, writeQueueNums: 4 }),
    );
    assert.deepEqual(
      tcm.selectTopicConfig('TopicOrder'),
      createTopicConfig('TopicOrder', {
        readQueueNums: 8,
        writeQueueNums: 8,
        topicFilterType: 'MULTI_TAG',
        topicSysFlag: 1,
        order: true,
      }),
    );
    assert.ok(tcm.selectTopicConfig('TBW102'), 'built-in topics stay');
    assert.deepEqual(tcm.dataVersion, { counter: 7n, timestamp: 1700000000789n });
    assert.equal(b.consumerOffsetManager.queryOffset('cg-golden', 'TopicTest', 3), 9007199254740993n);
    assert.equal(b.consumerOffsetManager.queryOffset('cg-golden', '%RETRY%cg-golden', 0), 0n);
    assert.deepEqual(
      b.subscriptionGroupManager.subscriptionGroupTable.get('cg-custom'),
      createSubscriptionGroupConfig('cg-custom', {
        consumeBroadcastEnable: false,
        retryMaxTimes: 3,
        retryQueueNums: 2,
        brokerId: 1n,
        whichBrokerWhenConsumeSlowly: 2n,
        notifyConsumerIdsChangedEnable: false,
      }),
    );
    assert.deepEqual(b.subscriptionGroupManager.dataVersion, { counter: 2n, timestamp: 1700000000456n });
    await b.shutdown();
    // Shutdown rewrote the offsets: the same bytes the official broker wrote, the old file kept as .bak.
    const offsets = join(root, 'config', 'consumerOffset.json');
    assert.equal(readFileSync(offsets, 'utf8'), goldenFile('bodies/consumerOffset.pretty.json').toString());
    assert.equal(
      readFileSync(`${offsets}.bak`, 'utf8'),
      goldenFile('bodies/consumerOffset.pretty.json').toString(),
    );
    assert.equal(existsSync(`${offsets}.tmp`), false);
  });

  test('changes are written atomically with a .bak and survive a restart', LIMIT, async () => {
    const root = storeRoot();
    const first = broker(root);
    await first.start();
    first.topicConfigManager.updateTopicConfig(
      createTopicConfig('T1', { readQueueNums: 2, writeQueueNums: 2 }),
    );
    await first.topicConfigManager.flushed();
    first.topicConfigManager.updateTopicConfig(createTopicConfig('T2'));
    first.subscriptionGroupManager.updateSubscriptionGroupConfig(
      createSubscriptionGroupConfig('g', { retryMaxTimes: 5 }),
    );
    first.consumerOffsetManager.commitOffset('h', 'g', 'T1', 1, 77n);
    await first.shutdown();
    const topics = join(root, 'config', 'topics.json');
    const current = decodeTopicConfigSerializeWrapper(readFileSync(topics), { timestamp: 0n });
    const previous = decodeTopicConfigSerializeWrapper(readFileSync(`${topics}.bak`), { timestamp: 0n });
    assert.ok(current.topicConfigTable.has('T2'));
    assert.ok(previous.topicConfigTable.has('T1') && !previous.topicConfigTable.has('T2'));
    assert.match(readFileSync(topics, 'utf8'), /^\{\n\t"dataVersion":\{\n\t\t"counter":2,/);
    const second = broker(root);
    await second.start();
    assert.deepEqual(
      second.topicConfigManager.selectTopicConfig('T1'),
      createTopicConfig('T1', { readQueueNums: 2, writeQueueNums: 2 }),
    );
    assert.equal(second.topicConfigManager.dataVersion.counter, 2n);
    assert.equal(second.subscriptionGroupManager.subscriptionGroupTable.get('g')?.retryMaxTimes, 5);
    assert.equal(second.consumerOffsetManager.queryOffset('g', 'T1', 1), 77n);
  });

  test('a corrupt file falls back to its .bak; corrupt without one refuses to start', LIMIT, async () => {
    const root = storeRoot();
    mkdirSync(join(root, 'config'), { recursive: true });
    const topics = join(root, 'config', 'topics.json');
    writeFileSync(topics, '{"topicConfigTable":{"T":{"topicName":');
    writeFileSync(`${topics}.bak`, '{"topicConfigTable":{"FromBak":{"topicName":"FromBak"}}}');
    const b = broker(root);
    await b.start();
    assert.ok(b.topicConfigManager.selectTopicConfig('FromBak'));
    await b.shutdown();

    const root2 = storeRoot();
    mkdirSync(join(root2, 'config'), { recursive: true });
    writeFileSync(join(root2, 'config', 'consumerOffset.json'), '{"offsetTable":{"T@g":{x:1}}}');
    const c = broker(root2);
    await assert.rejects(c.start(), /consumerOffset\.json .*no backup/);
    assert.equal(c.address, undefined);
  });

  test('offsets are persisted every flushConsumerOffsetInterval, first after 10 s', LIMIT, async () => {
    const root = storeRoot();
    const clock = new ManualClock();
    const b = broker(root, clock);
    await b.start();
    const file = join(root, 'config', 'consumerOffset.json');
    b.consumerOffsetManager.commitOffset('h', 'g', 'T', 0, 1n);
    clock.advance(9_999);
    await b.consumerOffsetManager.flushed();
    assert.equal(existsSync(file), false);
    clock.advance(1);
    await b.consumerOffsetManager.flushed();
    assert.match(readFileSync(file, 'utf8'), /"T@g":\{0:1\n/);
    b.consumerOffsetManager.commitOffset('h', 'g', 'T', 0, 2n);
    clock.advance(4_999);
    await b.consumerOffsetManager.flushed();
    assert.match(readFileSync(file, 'utf8'), /\{0:1\n/);
    clock.advance(1);
    await b.consumerOffsetManager.flushed();
    assert.match(readFileSync(file, 'utf8'), /\{0:2\n/);
  });
});

describe('lifecycle', () => {
  test('start once; shutdown is idempotent; a broker never started writes nothing', LIMIT, async () => {
    const root = storeRoot();
    const b = broker(root);
    await b.start();
    await assert.rejects(b.start(), /broker cannot start: it is running/);
    await b.shutdown();
    await b.shutdown();
    assert.equal(b.address, undefined);
    await assert.rejects(b.start(), /broker cannot start: it is stopped/);

    const unused = storeRoot();
    const never = broker(unused);
    never.consumerOffsetManager.commitOffset('h', 'g', 'T', 0, 1n);
    await never.shutdown();
    // The store's constructor makes its root directory, as upstream's does; no file is written.
    assert.deepEqual(existsSync(unused) ? readdirSync(unused, { recursive: true }) : [], []);
  });
});
