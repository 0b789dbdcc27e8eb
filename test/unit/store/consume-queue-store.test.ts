import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger } from '../../../src/common/logger.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import {
  type ConsumeQueueFlushInfo,
  ConsumeQueueStore,
  type ConsumeQueueStoreConfig,
} from '../../../src/store/consume-queue-store.js';
import { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { SegmentFileError } from '../../../src/store/segment-files.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const quiet = createLogger('test', { level: 'silent' });

function config(): ConsumeQueueStoreConfig {
  const root = mkdtempSync(join(tmpdir(), 'rmq-cqs-'));
  roots.push(root);
  return {
    storePathRootDir: root,
    mappedFileSizeConsumeQueue: 4 * 20,
    flushIntervalConsumeQueue: 1000,
    flushConsumeQueueLeastPages: 2,
    flushConsumeQueueThoroughInterval: 60_000,
  };
}

function request(
  topic: string,
  queueId: number,
  cqOffset: number,
  phy: number,
  sysFlag = 0,
): DispatchRequest {
  const storeTimestamp = BigInt(1_700_000_000_000 + phy);
  return new DispatchRequest(
    topic,
    queueId,
    BigInt(phy),
    100,
    0n,
    storeTimestamp,
    BigInt(cqOffset),
    sysFlag,
    0n,
    '',
  );
}

/** Dispatches `perQueue` records round-robin over the queues; returns the next physical offset. */
function fill(store: ConsumeQueueStore, queues: Array<[string, number]>, perQueue: number, phy = 0): number {
  let p = phy;
  for (let i = 0; i < perQueue; i++) {
    for (const [topic, queueId] of queues) {
      store.dispatch(request(topic, queueId, i, p));
      p += 100;
    }
  }
  return p;
}

describe('ConsumeQueueStore', () => {
  test('bad topics and queueIds are refused before anything is created on disk (CVE-2019-17572)', () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    for (const topic of ['../../etc', '..', '.', 'a/b', '/abs', '', 'x'.repeat(128), 'bad name']) {
      assert.throws(() => store.findConsumeQueue(topic, 0), ValidationError, JSON.stringify(topic));
      assert.throws(() => store.dispatch(request(topic, 0, 0, 0)), ValidationError);
    }
    assert.throws(() => store.dispatch(request('TopicA', -1, 0, 0)), ValidationError);
    assert.throws(() => store.findConsumeQueue('TopicA', 2 ** 31), ValidationError);
    assert.deepEqual(readdirSync(cfg.storePathRootDir), []);
    assert.equal([...store.queues()].length, 0);
  });

  test('findConsumeQueue creates queues on demand without touching the disk', () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    const cq = store.findConsumeQueue('TopicA', 7);
    assert.equal(store.findConsumeQueue('TopicA', 7), cq);
    assert.equal(store.getConsumeQueue('TopicA', 8), undefined);
    assert.equal(existsSync(store.storePath), false);
  });

  test('dispatch skips prepared and rolled-back transaction records', () => {
    const store = new ConsumeQueueStore(config(), { logger: quiet });
    store.dispatch(request('T', 0, 0, 0, MessageSysFlag.TRANSACTION_PREPARED_TYPE));
    store.dispatch(request('T', 0, 0, 100, MessageSysFlag.TRANSACTION_ROLLBACK_TYPE));
    assert.equal(store.getConsumeQueue('T', 0), undefined);
    store.dispatch(request('T', 0, 0, 200, MessageSysFlag.TRANSACTION_COMMIT_TYPE));
    store.dispatch(request('T', 0, 1, 300));
    assert.equal(store.getConsumeQueue('T', 0)?.getMaxOffsetInQueue(), 2n);
    assert.equal(store.getLogicsMsgTimestamp(), 1_700_000_000_300n);
    assert.equal(store.getMaxPhysicOffset(), 400n);
  });

  test('load walks consumequeue/, skips foreign directories, and recovery restores every queue', async () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    const queues: Array<[string, number]> = [
      ['TopicA', 0],
      ['TopicA', 1],
      ['%RETRY%group', 0],
      ['TopicB', 12],
    ];
    const end = fill(store, queues, 9);
    await store.shutdown();
    const root = join(cfg.storePathRootDir, 'consumequeue');
    mkdirSync(join(root, 'bad.topic', '0'), { recursive: true });
    mkdirSync(join(root, 'TopicA', 'notAnId'));
    mkdirSync(join(root, 'TopicA', '-1'));
    writeFileSync(join(root, 'straysfile'), '');

    const again = new ConsumeQueueStore(cfg, { logger: quiet });
    again.load();
    assert.equal(again.recover(), BigInt(end));
    const table = again.recoverTopicQueueTable(0n);
    assert.deepEqual([...table.entries()].sort(), [
      ['%RETRY%group-0', 9n],
      ['TopicA-0', 9n],
      ['TopicA-1', 9n],
      ['TopicB-12', 9n],
    ]);
    assert.equal(again.getConsumeQueue('TopicB', 12)?.getEntry(8n)?.commitLogOffset, BigInt(end - 100));
    await again.shutdown();
  });

  test('a malformed queue file stops the load with its name', () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    fill(store, [['TopicA', 0]], 3);
    store.commitAll();
    const dir = join(cfg.storePathRootDir, 'consumequeue', 'TopicA', '0');
    writeFileSync(join(dir, '00000000000000000080'), Buffer.alloc(10));
    const again = new ConsumeQueueStore(cfg, { logger: quiet });
    assert.throws(
      () => again.load(),
      (e: unknown) => e instanceof SegmentFileError && e.file.endsWith('00000000000000000080'),
    );
    assert.equal([...again.queues()].length, 0);
  });

  test('truncateDirtyLogicFiles applies to every queue', () => {
    const store = new ConsumeQueueStore(config(), { logger: quiet });
    fill(
      store,
      [
        ['A', 0],
        ['B', 0],
      ],
      6,
    );
    // records: A at 0,200,...; B at 100,300,...
    store.truncateDirtyLogicFiles(500n);
    assert.equal(store.getConsumeQueue('A', 0)?.getMaxOffsetInQueue(), 3n);
    assert.equal(store.getConsumeQueue('B', 0)?.getMaxOffsetInQueue(), 2n);
  });

  test('retention: files below the minimum go once per new minimum, expired queues are destroyed', () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    fill(store, [['A', 0]], 10); // A at 0..900
    fill(store, [['SCHEDULE_TOPIC_XXXX', 2]], 2, 1000); // 1000, 1100
    fill(store, [['B', 0]], 2, 1200); // 1200, 1300
    assert.equal(store.deleteExpiredFiles(450n), 1);
    assert.equal(store.deleteExpiredFiles(450n), 0, 'same minimum: nothing to do');
    assert.equal(store.getConsumeQueue('A', 0)?.getMinOffsetInQueue(), 5n);
    const removed = store.cleanExpiredConsumerQueue(1200n);
    assert.deepEqual(removed, [{ topic: 'A', queueId: 0 }]);
    assert.equal(store.getConsumeQueue('A', 0), undefined);
    assert.equal(existsSync(join(cfg.storePathRootDir, 'consumequeue', 'A')), false);
    assert.ok(store.getConsumeQueue('SCHEDULE_TOPIC_XXXX', 2), 'the schedule topic is kept');
    assert.deepEqual(store.cleanUnusedTopic(new Set(['B'])), []);
    fill(store, [['C', 1]], 1, 2000);
    assert.deepEqual(store.cleanUnusedTopic(new Set(['B'])), [{ topic: 'C', queueId: 1 }]);
  });

  test('the flush service runs on the clock; every thorough run reports the logics timestamp', async () => {
    const cfg = config();
    const clock = new ManualClock(1_000_000);
    const runs: ConsumeQueueFlushInfo[] = [];
    const store = new ConsumeQueueStore(cfg, {
      logger: quiet,
      clock,
      afterFlush: (info) => {
        runs.push(info);
      },
    });
    store.start();
    fill(store, [['A', 0]], 3);
    clock.advance(999);
    assert.equal(runs.length, 0);
    clock.advance(1);
    await store.whenFlushed();
    assert.deepEqual(runs, [{ flushLeastPages: 2, logicsMsgTimestamp: 0n }]);
    // The next run is scheduled when the previous one ends, so time advances one interval at a time.
    for (let i = 0; i < 59; i++) {
      clock.advance(1000);
      await store.whenFlushed();
    }
    assert.equal(runs.length, 60);
    assert.ok(runs.slice(0, 59).every((r) => r.flushLeastPages === 2));
    assert.deepEqual(runs.at(-1), { flushLeastPages: 0, logicsMsgTimestamp: 1_700_000_000_200n });
    fill(store, [['A', 0]], 4, 10_000);
    await store.shutdown();
    assert.deepEqual(runs.at(-1), { flushLeastPages: 0, logicsMsgTimestamp: 1_700_000_010_300n });
    clock.advance(10_000);
    assert.equal(runs.length, 61, 'no run after shutdown');
  });

  test('destroy removes every queue', () => {
    const cfg = config();
    const store = new ConsumeQueueStore(cfg, { logger: quiet });
    fill(
      store,
      [
        ['A', 0],
        ['B', 3],
      ],
      5,
    );
    store.destroy();
    assert.deepEqual(readdirSync(join(cfg.storePathRootDir, 'consumequeue')), []);
    assert.equal([...store.queues()].length, 0);
  });
});
