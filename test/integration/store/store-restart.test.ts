/**
 * DefaultMessageStore across restarts: clean ones, ones after which the abort file is still there,
 * and ones where the consume queues, the index or the commit log's tail lost data that the store
 * must rebuild (or cut) from the commit log.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { createAbortFile } from '../../../src/store/abort-file.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import { StoreCorruptionError } from '../../../src/store/store-error.js';
import {
  msg,
  openStore,
  pullAll,
  put,
  quiet,
  removeTempDirs,
  storeConfig,
  tempDir,
  uniqKey,
} from '../../unit/store/default-message-store-support.js';

after(removeTempDirs);

const TOPIC = 'TopicTest';
const CQ_FILE_ENTRIES = 20;

async function fill(store: DefaultMessageStore, from: number, count: number, queues = 1): Promise<void> {
  for (let i = from; i < from + count; i++) await put(store, msg(i, { queueId: i % queues }));
}

async function idxs(store: DefaultMessageStore, queueId = 0, topic = TOPIC): Promise<string[]> {
  return (await pullAll(store, topic, queueId)).map((m) => m.properties.get('idx') ?? '?');
}

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, k) => String(from + k));
}

function cqDir(root: string, queueId = 0, topic = TOPIC): string {
  return join(root, 'consumequeue', topic, String(queueId));
}

/** Zeroes the last `entries` written entries of the queue (as if they never reached the disk). */
function zeroConsumeQueueTail(root: string, total: number, entries: number, queueId = 0): void {
  for (let e = total - entries; e < total; e++) {
    const fileStart = Math.floor(e / CQ_FILE_ENTRIES) * CQ_FILE_ENTRIES * 20;
    const path = join(cqDir(root, queueId), String(fileStart).padStart(20, '0'));
    const fd = fs.openSync(path, 'r+');
    fs.writeSync(fd, Buffer.alloc(20), 0, 20, e * 20 - fileStart);
    fs.closeSync(fd);
  }
}

describe('DefaultMessageStore restarts', () => {
  test('a clean restart keeps every message, queue offsets and the index continue', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 70, 2);
    await store.shutdown();
    assert.ok(!fs.existsSync(join(root, 'abort')));

    store = await openStore(root);
    assert.equal(store.lastShutdownWasClean, true);
    assert.equal(store.getMaxOffsetInQueue(TOPIC, 0), 35n);
    await fill(store, 70, 10, 2);
    assert.deepEqual(
      await idxs(store, 0),
      range(0, 80).filter((i) => Number(i) % 2 === 0),
    );
    assert.deepEqual(
      await idxs(store, 1),
      range(0, 80).filter((i) => Number(i) % 2 === 1),
    );
    const q = await store.queryMessage(TOPIC, 'key-3', 32, 0n, 2n ** 62n);
    assert.deepEqual(
      q.messages.map((m) => decodeMessage(m).properties.get('idx')),
      ['3'],
    );
    await store.shutdown();
  });

  test('with the abort file present the store recovers abnormally and keeps every message', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 90, 3);
    await store.shutdown();
    createAbortFile(root);

    store = await openStore(root);
    assert.equal(store.lastShutdownWasClean, false);
    for (let q = 0; q < 3; q++) {
      assert.deepEqual(
        await idxs(store, q),
        range(0, 90).filter((i) => Number(i) % 3 === q),
      );
    }
    assert.equal((await put(store, msg(90))).logicsOffset, 30n);
    const q = await store.queryMessage(TOPIC, uniqKey(44), 32, 0n, 2n ** 62n);
    assert.equal(q.messages.length, 1, 'no duplicate index entries after the recovery re-dispatched');
    await store.shutdown();
  });

  test('the reput rebuilds consume-queue entries lost from the tail of a file', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 50);
    await store.shutdown();
    // 50 entries: files of 20; the last 7 (43..49) are zeroed, across the file boundary at 40.
    zeroConsumeQueueTail(root, 50, 7);

    store = await openStore(root);
    assert.equal(store.getMaxOffsetInQueue(TOPIC, 0), 50n, 'entries are back');
    assert.deepEqual(await idxs(store), range(0, 50));
    assert.equal((await put(store, msg(50))).logicsOffset, 50n);
    await store.shutdown();

    // The same after a crash: abort file and a lost tail together.
    zeroConsumeQueueTail(root, 51, 12);
    createAbortFile(root);
    store = await openStore(root);
    assert.deepEqual(await idxs(store), range(0, 51));
    await store.shutdown();
  });

  test('a lost consume-queue file and a deleted consume-queue directory are rebuilt', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 45);
    await store.shutdown();
    fs.rmSync(join(cqDir(root), String(40 * 20).padStart(20, '0')));

    store = await openStore(root);
    assert.deepEqual(await idxs(store), range(0, 45));
    await store.shutdown();

    fs.rmSync(join(root, 'consumequeue'), { recursive: true });
    store = await openStore(root);
    assert.deepEqual(await idxs(store), range(0, 45));
    assert.equal((await put(store, msg(45))).logicsOffset, 45n);
    await store.shutdown();
  });

  test('after a crash that lost the newest index file, queries still find every key', async () => {
    const root = tempDir();
    const clock = new ManualClock(1_700_000_000_000);
    let store = await openStore(root, {}, { clock });
    for (let i = 0; i < 120; i++) {
      await put(store, msg(i));
      clock.advance(10);
    }
    await store.shutdown();
    const indexFiles = fs.readdirSync(join(root, 'index')).sort();
    assert.ok(indexFiles.length >= 2, 'several index files');
    // The newest file's entries are past the checkpoint's index time: upstream drops the file.
    createAbortFile(root);

    store = await openStore(root, {}, { clock });
    for (const i of [0, 59, 118, 119]) {
      const q = await store.queryMessage(TOPIC, `key-${i}`, 32, 0n, 2n ** 62n);
      assert.deepEqual(
        q.messages.map((m) => decodeMessage(m).properties.get('idx')),
        [String(i)],
        `key-${i}`,
      );
    }
    await store.shutdown();
  });

  test('a torn commit-log tail is cut after a crash; queue entries pointing past it go too', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 30);
    const last = await put(store, msg(30));
    await store.shutdown();
    // Tear the last record: its second half never reached the disk.
    const fileStart = Math.floor(Number(last.wroteOffset) / 8192) * 8192;
    const path = join(root, 'commitlog', String(fileStart).padStart(20, '0'));
    const fd = fs.openSync(path, 'r+');
    const half = Math.floor(last.wroteBytes / 2);
    fs.writeSync(
      fd,
      Buffer.alloc(last.wroteBytes - half),
      0,
      last.wroteBytes - half,
      Number(last.wroteOffset) - fileStart + half,
    );
    fs.closeSync(fd);
    createAbortFile(root);

    store = await openStore(root);
    assert.equal(store.getMaxPhyOffset(), last.wroteOffset);
    assert.equal(store.getMaxOffsetInQueue(TOPIC, 0), 30n);
    assert.deepEqual(await idxs(store), range(0, 30));
    const again = await put(store, msg(31));
    assert.equal(again.logicsOffset, 30n);
    assert.equal(again.wroteOffset, last.wroteOffset);
    const r = await store.getMessage('g', TOPIC, 0, 30n, 1);
    assert.equal(r.status, GetMessageStatus.FOUND);
    assert.equal(decodeMessage(r.messages[0] as Buffer).properties.get('idx'), '31');
    await store.shutdown();
  });

  test('damage in the middle of the commit log stops the load with the file and offset', async () => {
    const root = tempDir();
    let store = await openStore(root);
    await fill(store, 0, 40);
    const victim = await put(store, msg(40));
    await fill(store, 41, 5);
    await store.shutdown();
    const fileStart = Math.floor(Number(victim.wroteOffset) / 8192) * 8192;
    const name = String(fileStart).padStart(20, '0');
    const fd = fs.openSync(join(root, 'commitlog', name), 'r+');
    // Flip the first body byte (the body starts 92 bytes into an IPv4 record): the CRC no longer
    // matches, and valid records follow.
    const at = Number(victim.wroteOffset) - fileStart + 92;
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, at);
    b[0] = (b[0] ?? 0) ^ 0xff;
    fs.writeSync(fd, b, 0, 1, at);
    fs.closeSync(fd);
    createAbortFile(root);

    const broken = new DefaultMessageStore(storeConfig(root), { logger: quiet, clock: new ManualClock() });
    await assert.rejects(broken.load(), (err: unknown) => {
      assert.ok(err instanceof StoreCorruptionError, String(err));
      assert.ok(err.fileName.endsWith(name));
      assert.equal(err.physicalOffset, Number(victim.wroteOffset));
      return true;
    });
    // The refusal left the directory as it was and unlocked.
    store = await openStore(root, { allowMidLogTruncation: true });
    assert.deepEqual(await idxs(store), range(0, 40));
    await store.shutdown();
  });
});
