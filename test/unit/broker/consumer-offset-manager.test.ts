/** ConsumerOffsetManager with in-memory files: commits, queries, lookups by topic and group, the file. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConsumerOffsetManager } from '../../../src/broker/offset/consumer-offset-manager.js';
import { goldenFile } from '../../golden-fixtures.js';
import { capturingLogger, MemoryFileIO, quiet } from './helpers.js';

const FILE = '/mem/store/config/consumerOffset.json';

function setup() {
  const io = new MemoryFileIO();
  const com = new ConsumerOffsetManager({ config: { storePathRootDir: '/mem/store' }, logger: quiet, io });
  return { com, io };
}

describe('ConsumerOffsetManager', () => {
  test('commit and query', () => {
    const { com } = setup();
    assert.equal(com.queryOffset('g', 'T', 0), -1n);
    com.commitOffset('10.0.0.5:1', 'g', 'T', 0, 118n);
    com.commitOffset('10.0.0.5:1', 'g', 'T', 1, 57n);
    assert.equal(com.queryOffset('g', 'T', 0), 118n);
    assert.equal(com.queryOffset('g', 'T', 2), -1n);
    assert.equal(com.queryOffset('other', 'T', 0), -1n);
    assert.deepEqual(
      com.queryOffsets('g', 'T'),
      new Map([
        [0, 118n],
        [1, 57n],
      ]),
    );
  });

  test('a commit going backwards is kept and logged', () => {
    const { logger, records } = capturingLogger();
    const com = new ConsumerOffsetManager({
      config: { storePathRootDir: '/x' },
      logger,
      io: new MemoryFileIO(),
    });
    com.commitOffset('h', 'g', 'T', 0, 10n);
    com.commitOffset('h', 'g', 'T', 0, 5n);
    assert.equal(com.queryOffset('g', 'T', 0), 5n);
    assert.ok(records.some((r) => r.level === 'warn' && r.msg.includes('less than store')));
  });

  test('which topics / groups, clone, remove', () => {
    const { com } = setup();
    com.commitOffset('h', 'g1', 'T1', 0, 1n);
    com.commitOffset('h', 'g1', 'T2', 0, 2n);
    com.commitOffset('h', 'g2', 'T1', 0, 3n);
    com.commitOffset('h', 'g10', 'T1', 0, 4n);
    assert.deepEqual(com.whichTopicByConsumer('g1'), new Set(['T1', 'T2']));
    assert.deepEqual(com.whichGroupByTopic('T1'), new Set(['g1', 'g2', 'g10']));
    com.cloneOffset('g1', 'g3', 'T2');
    assert.equal(com.queryOffset('g3', 'T2', 0), 2n);
    com.cloneOffset('nobody', 'g4', 'T2');
    assert.equal(com.queryOffsets('g4', 'T2'), undefined);
    com.removeOffset('g1');
    assert.deepEqual(com.whichTopicByConsumer('g1'), new Set());
    assert.equal(com.queryOffset('g10', 'T1', 0), 4n, 'only the exact group goes');
  });

  test('queryMinOffsetInAllGroup and scanUnsubscribedTopic', () => {
    const { com } = setup();
    com.commitOffset('h', 'g1', 'T', 0, 10n);
    com.commitOffset('h', 'g2', 'T', 0, 7n);
    com.commitOffset('h', 'g2', 'T', 1, 3n);
    const min = (_t: string, q: number) => (q === 1 ? 5n : 0n);
    assert.deepEqual(com.queryMinOffsetInAllGroup('T', undefined, min), new Map([[0, 7n]]));
    assert.deepEqual(com.queryMinOffsetInAllGroup('T', 'g2', min), new Map([[0, 10n]]));
    com.commitOffset('h', 'old', 'U', 0, 2n);
    com.scanUnsubscribedTopic(
      (g) => g !== 'old',
      () => 2n,
    );
    assert.equal(com.queryOffsets('old', 'U'), undefined);
    assert.equal(com.queryOffset('g1', 'T', 0), 10n);
  });

  test('the file: pretty official layout, written only when changed', async () => {
    const { com, io } = setup();
    await com.persist();
    assert.equal(io.writes.length, 0, 'nothing committed, nothing written');
    com.commitOffset('h', 'cg-golden', 'TopicTest', 3, 9007199254740993n);
    com.commitOffset('h', 'cg-golden', 'TopicTest', 1, 57n);
    com.commitOffset('h', 'cg-golden', 'TopicTest', 0, 118n);
    com.commitOffset('h', 'cg-golden', '%RETRY%cg-golden', 0, 0n);
    await com.persist();
    assert.equal(io.files.get(FILE), goldenFile('bodies/consumerOffset.pretty.json').toString('utf8'));
    assert.equal(com.encode(false), goldenFile('bodies/consumerOffset.compact.json').toString('utf8'));
    await com.persist();
    assert.equal(io.writes.length, 1);
    await com.persist(true);
    assert.equal(io.writes.length, 2);
  });

  test('a failed write is retried on the next persist', async () => {
    const { com, io } = setup();
    io.failWrites = true;
    com.commitOffset('h', 'g', 'T', 0, 1n);
    await com.persist();
    assert.equal(com.hasChanges, true);
    io.failWrites = false;
    await com.persist();
    assert.equal(io.writes.length, 1);
    assert.equal(com.hasChanges, false);
  });

  test('load replaces the table with the official file', async () => {
    const { com, io } = setup();
    com.commitOffset('h', 'gone', 'X', 0, 1n);
    io.files.set(FILE, goldenFile('bodies/consumerOffset.pretty.json').toString('utf8'));
    await com.load();
    assert.equal(com.queryOffset('gone', 'X', 0), -1n);
    assert.equal(com.queryOffset('cg-golden', 'TopicTest', 3), 9007199254740993n);
  });
});
