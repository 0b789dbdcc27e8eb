/**
 * TopicConfigManager with in-memory files: the system topics of a 4.9.8 broker, auto-creation from
 * TBW102, send-back topics, updates and deletes with DataVersion bumps, the order config from the
 * name server, name validation before anything is written, and topics.json persistence.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brokerConfig } from '../../../src/broker/broker-config.js';
import { MAX_TOPIC_QUEUE_NUMS, TopicConfigManager } from '../../../src/broker/topic/topic-config-manager.js';
import { ValidationError } from '../../../src/common/errors.js';
import { decodeTopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import { createTopicConfig, type TopicConfig } from '../../../src/common/protocol/topic-config.js';
import { ManualClock, MemoryFileIO, quiet, TEST_ENV } from './helpers.js';

const FILE = '/mem/store/config/topics.json';

function setup(overrides: Parameters<typeof brokerConfig>[0] = {}) {
  const clock = new ManualClock();
  const io = new MemoryFileIO();
  const config = brokerConfig(
    { storePathRootDir: '/mem/store', brokerName: 'broker-a', ...overrides },
    TEST_ENV,
  );
  const changed: TopicConfig[] = [];
  const tcm = new TopicConfigManager({
    config,
    clock,
    logger: quiet,
    io,
    onTopicConfigChanged: (tc) => changed.push({ ...tc }),
  });
  return { tcm, clock, io, config, changed };
}

describe('system topics', () => {
  test('what a 4.9.8 broker creates at start', () => {
    const { tcm } = setup();
    const t = (name: string) => {
      const c = tcm.selectTopicConfig(name);
      assert.ok(c, name);
      return [c.readQueueNums, c.writeQueueNums, c.perm];
    };
    assert.deepEqual(t('SELF_TEST_TOPIC'), [1, 1, 6]);
    assert.deepEqual(t('TBW102'), [8, 8, 7]);
    assert.deepEqual(t('BenchmarkTest'), [1024, 1024, 6]);
    assert.deepEqual(t('DefaultCluster'), [16, 16, 7]);
    assert.deepEqual(t('broker-a'), [1, 1, 7]);
    assert.deepEqual(t('OFFSET_MOVED_EVENT'), [1, 1, 6]);
    assert.deepEqual(t('SCHEDULE_TOPIC_XXXX'), [18, 18, 6]);
    assert.deepEqual(t('DefaultCluster_REPLY_TOPIC'), [1, 1, 6]);
    assert.equal(tcm.selectTopicConfig('RMQ_SYS_TRACE_TOPIC'), undefined);
    assert.equal(
      tcm.selectTopicConfig('RMQ_SYS_TRANS_HALF_TOPIC'),
      undefined,
      'created on first use in 4.9.8',
    );
    assert.equal(tcm.topicConfigTable.size, 8);
    assert.equal(tcm.dataVersion.counter, 0n);
  });

  test('switches: no TBW102 without auto-create, trace topic, cluster and broker topics not writable', () => {
    const { tcm } = setup({
      autoCreateTopicEnable: false,
      traceTopicEnable: true,
      msgTraceTopicName: 'my_trace',
      clusterTopicEnable: false,
      brokerTopicEnable: false,
      defaultTopicQueueNums: 4,
    });
    assert.equal(tcm.selectTopicConfig('TBW102'), undefined);
    assert.equal(tcm.selectTopicConfig('my_trace')?.readQueueNums, 1);
    assert.equal(tcm.selectTopicConfig('DefaultCluster')?.perm, 1);
    assert.equal(tcm.selectTopicConfig('broker-a')?.perm, 1);
    assert.ok(
      tcm.isSystemTopic('my_trace') && tcm.isSystemTopic('broker-a') && tcm.isSystemTopic('DefaultCluster'),
    );
    assert.ok(tcm.isSystemTopic('rmq_sys_x') && tcm.isSystemTopic('SCHEDULE_TOPIC_XXXX'));
    assert.ok(!tcm.isSystemTopic('TopicTest'));
  });
});

describe('createTopicInSendMessageMethod', () => {
  test('copies TBW102: min(client queues, its write queues), perm without inherit', async () => {
    const { tcm, clock, io, changed } = setup();
    clock.advance(1000);
    const created = tcm.createTopicInSendMessageMethod('TopicA', 'TBW102', '10.0.0.5:1', 16, 0);
    assert.deepEqual(created, createTopicConfig('TopicA', { readQueueNums: 8, writeQueueNums: 8, perm: 6 }));
    assert.deepEqual(tcm.dataVersion, { counter: 1n, timestamp: BigInt(clock.now()) });
    assert.deepEqual(
      changed.map((c) => c.topicName),
      ['TopicA'],
    );
    await tcm.flushed();
    assert.ok(
      decodeTopicConfigSerializeWrapper(Buffer.from(io.files.get(FILE) ?? ''), {
        timestamp: 0n,
      }).topicConfigTable.has('TopicA'),
    );
    // Existing: returned as is, nothing changes.
    assert.equal(tcm.createTopicInSendMessageMethod('TopicA', 'TBW102', 'x', 2, 0), created);
    assert.equal(tcm.dataVersion.counter, 1n);
    assert.equal(changed.length, 1);
    const small = tcm.createTopicInSendMessageMethod('TopicB', 'TBW102', 'x', 2, 1);
    assert.deepEqual([small?.writeQueueNums, small?.topicSysFlag], [2, 1]);
    assert.equal(tcm.createTopicInSendMessageMethod('TopicC', 'TBW102', 'x', -3, 0)?.writeQueueNums, 0);
  });

  test('no template, or a template without inherit: nothing created', () => {
    const { tcm, changed } = setup();
    assert.equal(tcm.createTopicInSendMessageMethod('T1', 'NoSuchTopic', 'x', 4, 0), undefined);
    assert.equal(tcm.createTopicInSendMessageMethod('T1', 'SELF_TEST_TOPIC', 'x', 4, 0), undefined);
    assert.equal(tcm.selectTopicConfig('T1'), undefined);
    assert.equal(changed.length, 0);
    assert.equal(tcm.dataVersion.counter, 0n);
  });

  test('a TBW102 loaded while auto-create is off loses its inherit bit (upstream mutates it)', async () => {
    const { tcm, io } = setup({ autoCreateTopicEnable: false });
    io.files.set(
      FILE,
      '{"topicConfigTable":{"TBW102":{"perm":7,"readQueueNums":8,"topicName":"TBW102","writeQueueNums":8}}}',
    );
    await tcm.load();
    assert.equal(tcm.createTopicInSendMessageMethod('T1', 'TBW102', 'x', 4, 0), undefined);
    assert.equal(tcm.selectTopicConfig('TBW102')?.perm, 6);
  });

  test('invalid names are refused before anything is written', async () => {
    const { tcm, io } = setup();
    for (const bad of ['../../etc', 'a/b', '', ' ', 'x'.repeat(128), 'topic.name']) {
      assert.throws(() => tcm.createTopicInSendMessageMethod(bad, 'TBW102', 'x', 4, 0), ValidationError, bad);
      assert.throws(() => tcm.createTopicInSendMessageBackMethod(bad, 1, 6, 0), ValidationError, bad);
      assert.throws(() => tcm.updateTopicConfig(createTopicConfig(bad)), ValidationError, bad);
    }
    await tcm.flushed();
    assert.equal(io.writes.length, 0);
    assert.equal(tcm.dataVersion.counter, 0n);
  });
});

describe('createTopicInSendMessageBackMethod', () => {
  test('creates with the given queues, perm and flag once', () => {
    const { tcm, changed } = setup();
    const c = tcm.createTopicInSendMessageBackMethod('%RETRY%g', 1, 6, 2);
    assert.deepEqual(
      c,
      createTopicConfig('%RETRY%g', { readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 2 }),
    );
    assert.equal(tcm.createTopicInSendMessageBackMethod('%RETRY%g', 5, 2, 0), c);
    assert.equal(changed.length, 1);
    assert.equal(tcm.createTopicOfTranCheckMaxTime(1, 6).topicName, 'TRANS_CHECK_MAX_TIME_TOPIC');
  });
});

describe('updates', () => {
  test('update, unit flags, delete: each bumps the version and persists', async () => {
    const { tcm, io, clock } = setup();
    tcm.updateTopicConfig(createTopicConfig('T', { readQueueNums: 4, writeQueueNums: 4 }));
    clock.advance(5);
    tcm.updateTopicUnitFlag('T', true);
    tcm.updateTopicUnitSubFlag('T', true);
    assert.equal(tcm.selectTopicConfig('T')?.topicSysFlag, 3);
    tcm.updateTopicUnitFlag('T', false);
    assert.equal(tcm.selectTopicConfig('T')?.topicSysFlag, 2);
    assert.equal(tcm.dataVersion.counter, 4n);
    assert.equal(tcm.deleteTopicConfig('T'), true);
    assert.equal(tcm.deleteTopicConfig('T'), false);
    assert.equal(tcm.dataVersion.counter, 5n);
    await tcm.flushed();
    assert.ok(io.writes.length >= 1 && io.writes.length <= 5, `coalesced writes: ${io.writes.length}`);
    const onDisk = decodeTopicConfigSerializeWrapper(Buffer.from(io.files.get(FILE) ?? ''), {
      timestamp: 0n,
    });
    assert.equal(onDisk.topicConfigTable.has('T'), false);
    assert.equal(onDisk.dataVersion.counter, 5n);
  });

  test('queue counts are bounded', () => {
    const { tcm } = setup();
    assert.throws(
      () => tcm.updateTopicConfig(createTopicConfig('T', { writeQueueNums: -1 })),
      /writeQueueNums/,
    );
    assert.throws(
      () => tcm.updateTopicConfig(createTopicConfig('T', { readQueueNums: MAX_TOPIC_QUEUE_NUMS + 1 })),
      /readQueueNums must be between 0 and 65536/,
    );
    tcm.updateTopicConfig(createTopicConfig('T', { readQueueNums: MAX_TOPIC_QUEUE_NUMS }));
  });

  test('order config from the name server: listed topics ordered, the others not', () => {
    const { tcm } = setup();
    tcm.updateTopicConfig(createTopicConfig('O1'));
    tcm.updateTopicConfig({ ...createTopicConfig('O2'), order: true });
    const before = tcm.dataVersion.counter;
    tcm.updateOrderTopicConfig(undefined);
    assert.equal(tcm.dataVersion.counter, before);
    tcm.updateOrderTopicConfig(new Map([['O1', 'broker-a:4']]));
    assert.equal(tcm.isOrderTopic('O1'), true);
    assert.equal(tcm.isOrderTopic('O2'), false);
    assert.equal(tcm.dataVersion.counter, before + 1n);
    tcm.updateOrderTopicConfig(new Map([['O1', 'broker-a:4']]));
    assert.equal(tcm.dataVersion.counter, before + 1n, 'no change, no bump');
  });
});

describe('topics.json', () => {
  test('pretty, every topic, Java bucket order', async () => {
    const { tcm, io } = setup();
    await tcm.persist();
    const text = io.files.get(FILE) ?? '';
    assert.match(
      text,
      /^\{\n\t"dataVersion":\{\n\t\t"counter":0,\n\t\t"timestamp":\d+\n\t\},\n\t"topicConfigTable":\{\n\t\t"/,
    );
    const wrapper = decodeTopicConfigSerializeWrapper(Buffer.from(text), { timestamp: 0n });
    assert.deepEqual(new Set(wrapper.topicConfigTable.keys()), new Set(tcm.topicConfigTable.keys()));
    assert.equal(tcm.encode(false), tcm.encode(false).replace(/[\n\t]/g, ''));
  });

  test('load merges the file over the built-in topics and takes its version', async () => {
    const { tcm, io } = setup();
    io.files.set(
      FILE,
      '{"dataVersion":{"counter":7,"timestamp":1700000000789},"topicConfigTable":{"TBW102":{"perm":7,"readQueueNums":4,"topicName":"TBW102","writeQueueNums":4},"Mine":{"topicName":"Mine"}}}',
    );
    await tcm.load();
    assert.deepEqual(tcm.dataVersion, { counter: 7n, timestamp: 1700000000789n });
    assert.equal(tcm.selectTopicConfig('TBW102')?.writeQueueNums, 4);
    assert.deepEqual(tcm.selectTopicConfig('Mine'), createTopicConfig('Mine'));
    assert.ok(tcm.selectTopicConfig('SELF_TEST_TOPIC'));
  });

  test('a corrupt file falls back to .bak; corrupt without .bak stops the start', async () => {
    const a = setup();
    a.io.files.set(FILE, '{"topicConfigTable":{');
    a.io.files.set(`${FILE}.bak`, '{"topicConfigTable":{"FromBak":{"topicName":"FromBak"}}}');
    await a.tcm.load();
    assert.ok(a.tcm.selectTopicConfig('FromBak'));
    const b = setup();
    b.io.files.set(FILE, 'garbage');
    await assert.rejects(b.tcm.load(), /cannot load \/mem\/store\/config\/topics\.json .* no backup/);
    const c = setup();
    c.io.files.set(FILE, '');
    await c.tcm.load();
    assert.equal(c.tcm.topicConfigTable.size, 8, 'an empty file with no backup is a fresh start');
    const d = setup();
    d.io.files.set(FILE, 'garbage');
    d.io.files.set(`${FILE}.bak`, 'garbage too');
    await assert.rejects(d.tcm.load(), /cannot load .*topics\.json nor .*topics\.json\.bak/);
  });

  test('a failed write is logged and the table stays', async () => {
    const { tcm, io } = setup();
    io.failWrites = true;
    tcm.updateTopicConfig(createTopicConfig('T'));
    await tcm.flushed();
    assert.ok(tcm.selectTopicConfig('T'));
    io.failWrites = false;
    await tcm.persist();
    assert.match(io.files.get(FILE) ?? '', /"T"/);
  });
});
