/**
 * Retention through DefaultMessageStore with a manual clock: commit-log files older than
 * fileReservedTime go at the deleteWhen hour or when the disk is fuller than diskMaxUsedSpaceRatio,
 * the consume queues' minimums follow, their files and the index files below the new start go, and
 * the file being appended to stays.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import {
  msg,
  openStore,
  pullAll,
  put,
  removeTempDirs,
  tempDir,
} from '../../unit/store/default-message-store-support.js';

after(removeTempDirs);

const HOUR = 3_600_000;
const TOPIC = 'TopicTest';

interface Knobs {
  hour: number;
  diskUsed: number;
}

async function retentionStore(root: string, clock: ManualClock, knobs: Knobs): Promise<DefaultMessageStore> {
  return openStore(
    root,
    { fileReservedTime: 1, deleteWhen: '04', diskMaxUsedSpaceRatio: 75, maxIndexNum: 64 },
    {
      clock,
      retention: {
        cleanResourceInterval: 10_000,
        deleteCommitLogFilesInterval: 0,
        hourOfDay: () => knobs.hour,
        diskUsedRatio: () => knobs.diskUsed,
      },
    },
  );
}

function commitLogFiles(root: string): string[] {
  return fs.readdirSync(join(root, 'commitlog')).sort();
}

async function fillFiles(store: DefaultMessageStore, root: string, files: number): Promise<number> {
  let i = 0;
  while (commitLogFiles(root).length < files) await put(store, msg(i++, { body: 'r'.repeat(300) }));
  return i;
}

describe('DefaultMessageStore retention', () => {
  test('at the deleteWhen hour, files past fileReservedTime go and the queue minimum follows', async () => {
    const root = tempDir();
    const clock = new ManualClock(Date.now());
    const knobs = { hour: 4, diskUsed: 0.1 };
    const store = await retentionStore(root, clock, knobs);
    const count = await fillFiles(store, root, 5);
    const indexBefore = fs.readdirSync(join(root, 'index')).length;
    assert.ok(indexBefore >= 2, 'several index files');

    // Not expired yet.
    assert.equal(await store.cleanFilesPeriodically(), 0);
    clock.advance(2 * HOUR);
    // Expired, but not the hour.
    knobs.hour = 11;
    assert.equal(await store.cleanFilesPeriodically(), 0);
    knobs.hour = 4;
    const deleted = await store.cleanFilesPeriodically();
    assert.equal(deleted, 4, 'every file but the one being appended to');
    assert.equal(commitLogFiles(root).length, 1);
    assert.equal(store.getMinPhyOffset(), BigInt(Number(commitLogFiles(root)[0])));

    const min = store.getMinOffsetInQueue(TOPIC, 0);
    assert.ok(min > 0n);
    const r = await store.getMessage('g', TOPIC, 0, 0n, 32);
    assert.equal(r.status, GetMessageStatus.OFFSET_TOO_SMALL);
    assert.equal(r.nextBeginOffset, min);
    const rest = await pullAll(store, TOPIC, 0, min);
    assert.deepEqual(
      rest.map((m) => Number(m.properties.get('idx'))),
      Array.from({ length: count - Number(min) }, (_, k) => Number(min) + k),
    );
    assert.ok(rest.every((m) => m.commitLogOffset >= store.getMinPhyOffset()));
    const cqFiles = fs.readdirSync(join(root, 'consumequeue', TOPIC, '0')).sort();
    assert.ok(Number(cqFiles[0]) / 20 <= Number(min), 'the file holding the minimum is kept');
    assert.ok(Number(cqFiles[0]) > 0, 'consume-queue files below the minimum are gone');
    assert.ok(
      fs.readdirSync(join(root, 'index')).length < indexBefore,
      'index files below the start are gone',
    );
    assert.equal(store.getEarliestMessageTime(TOPIC, 0), rest[0]?.storeTimestamp);
    await store.shutdown();
  });

  test('the service runs on its own every cleanResourceInterval of the clock', async () => {
    const root = tempDir();
    const clock = new ManualClock(Date.now());
    const store = await retentionStore(root, clock, { hour: 4, diskUsed: 0.1 });
    await fillFiles(store, root, 3);
    clock.advance(2 * HOUR);
    // Let the round that started early in the advance finish, then let the next one fire.
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(commitLogFiles(root).length, 3, 'the first round ran before the files expired');
    clock.advance(10_000);
    for (let turn = 0; turn < 1000 && commitLogFiles(root).length > 1; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(commitLogFiles(root).length, 1);
    await store.shutdown();
  });

  test('disk use above diskMaxUsedSpaceRatio deletes expired files at any hour; above 85% even fresh ones; above 90% appends stop', async () => {
    const root = tempDir();
    const clock = new ManualClock(Date.now());
    const knobs = { hour: 11, diskUsed: 0.8 };
    const store = await retentionStore(root, clock, knobs);
    await fillFiles(store, root, 4);
    // Full enough to clean, but nothing is expired yet.
    assert.equal(await store.cleanFilesPeriodically(), 0);
    clock.advance(2 * HOUR);
    await fillFiles(store, root, 6);
    // Files 1-4 are expired (by the clock), 5 is fresh, 6 is being appended to.
    const before = commitLogFiles(root);
    for (const name of before.slice(4)) {
      const t = new Date(clock.now() + 60_000);
      fs.utimesSync(join(root, 'commitlog', name), t, t);
    }
    assert.equal(await store.cleanFilesPeriodically(), 4);
    assert.deepEqual(commitLogFiles(root), before.slice(4));

    knobs.diskUsed = 0.88;
    assert.equal(await store.cleanFilesPeriodically(), 1, 'cleaned at once, expired or not');
    assert.equal(commitLogFiles(root).length, 1);

    knobs.diskUsed = 0.95;
    await store.cleanFilesPeriodically();
    assert.equal((await store.putMessage(msg(999))).putMessageStatus, PutMessageStatus.SERVICE_NOT_AVAILABLE);
    knobs.diskUsed = 0.5;
    await store.cleanFilesPeriodically();
    assert.equal((await store.putMessage(msg(999))).putMessageStatus, PutMessageStatus.PUT_OK);
    await store.shutdown();
  });
});
