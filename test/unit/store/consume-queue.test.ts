import assert from 'node:assert/strict';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { ConsumeQueue, type ConsumeQueueOptions } from '../../../src/store/consume-queue.js';
import { CQ_PADDING_SIZE, CQ_STORE_UNIT_SIZE, cqEntryAt } from '../../../src/store/consume-queue-entry.js';
import { SegmentFileError } from '../../../src/store/segment-files.js';
import { annotated } from '../message/annotated.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cq-'));
  roots.push(dir);
  return join(dir, 'consumequeue');
}

const quiet = createLogger('test', { level: 'silent' });

function options(
  storePath: string,
  entriesPerFile: number,
  extra: Partial<ConsumeQueueOptions> = {},
): ConsumeQueueOptions {
  return { storePath, mappedFileSize: entriesPerFile * CQ_STORE_UNIT_SIZE, logger: quiet, ...extra };
}

/** Entry i of the simple test pattern: record i at physical offset i*100, 50 bytes, tag hash i. */
function put(cq: ConsumeQueue, i: number, phy = BigInt(i * 100), size = 50): boolean {
  return cq.putEntry(phy, size, BigInt(i), BigInt(i));
}

function reopen(storePath: string, entriesPerFile: number, topic = 'TopicA', queueId = 0): ConsumeQueue {
  const cq = new ConsumeQueue(topic, queueId, options(storePath, entriesPerFile));
  cq.load();
  cq.recover();
  return cq;
}

function fileBytes(cq: ConsumeQueue, n: number): Buffer {
  const path = cq.fileNames()[n];
  assert.ok(path !== undefined, `file ${n} exists`);
  return readFileSync(path);
}

/** Resolves after the current turn's microtasks (where auto-commit writes) have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe('ConsumeQueue layout', () => {
  test('an entry is commitLogOffset int64 | size int32 | tagsCode int64 in a full-size file named by its offset', async () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 3, options(root, 4));
    cq.putEntry(0x0102030405060708n, 0x11223344, -2n, 0n);
    await nextTurn();
    assert.deepEqual(readdirSync(join(root, 'TopicA', '3')), ['00000000000000000000']);
    const bytes = fileBytes(cq, 0);
    assert.equal(bytes.length, 80);
    assert.deepEqual(
      bytes.subarray(0, 20),
      annotated(
        ['commitLogOffset', '0102030405060708'],
        ['size', '11223344'],
        ['tagsCode (-2)', 'fffffffffffffffe'],
      ),
    );
    assert.ok(
      bytes.subarray(20).every((b) => b === 0),
      'rest of the file is zero',
    );
    const e = cq.getEntry(0n);
    assert.deepEqual(e, { commitLogOffset: 0x0102030405060708n, size: 0x11223344, tagsCode: -2n });
    cq.close();
  });

  test('a queue whose first entry is past 0 starts its file at the covering boundary, padded with 0|MAX|0', async () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    assert.equal(cq.putEntry(5000n, 77, 9n, 6n), true);
    await nextTurn();
    assert.deepEqual(readdirSync(join(root, 'TopicA', '0')), ['00000000000000000080']);
    const bytes = fileBytes(cq, 0);
    const pad = annotated(
      ['offset', '0000000000000000'],
      ['size MAX', '7fffffff'],
      ['tags', '0000000000000000'],
    );
    assert.deepEqual(bytes.subarray(0, 20), pad);
    assert.deepEqual(bytes.subarray(20, 40), pad);
    assert.deepEqual(
      bytes.subarray(40, 60),
      annotated(['offset 5000', '0000000000001388'], ['size 77', '0000004d'], ['tags 9', '0000000000000009']),
    );
    assert.equal(cq.getMinOffsetInQueue(), 6n);
    assert.equal(cq.getMaxOffsetInQueue(), 7n);
    assert.equal(cq.getIndexBuffer(5n), undefined, 'padding is below the minimum');
    assert.equal(cq.getEntry(6n)?.commitLogOffset, 5000n);
    assert.equal(CQ_PADDING_SIZE, 0x7fffffff);
    cq.close();
  });
});

describe('ConsumeQueue writes and reads', () => {
  test('many puts roll files and read back from memory and disk, bounded by file end and maxEntries', async () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 1, options(root, 100));
    for (let i = 0; i < 1000; i++) assert.equal(put(cq, i), true);
    assert.equal(cq.getMaxOffsetInQueue(), 1000n);
    assert.equal(cq.getMinOffsetInQueue(), 0n);
    assert.equal(cq.fileNames().length, 10);
    assert.equal(cq.getMaxPhysicOffset(), 99_950n);
    // Whole rest of a file, from the middle of one
    const buf = cq.getIndexBuffer(250n);
    assert.ok(buf);
    assert.equal(buf.length, 50 * CQ_STORE_UNIT_SIZE);
    for (let i = 0; i < 50; i++)
      assert.deepEqual(cqEntryAt(buf, i), {
        commitLogOffset: BigInt((250 + i) * 100),
        size: 50,
        tagsCode: BigInt(250 + i),
      });
    assert.equal(cq.getIndexBuffer(998n, 10)?.length, 2 * CQ_STORE_UNIT_SIZE);
    assert.equal(cq.getIndexBuffer(10n, 3)?.length, 3 * CQ_STORE_UNIT_SIZE);
    assert.equal(cq.getIndexBuffer(1000n), undefined);
    assert.equal(cq.getIndexBuffer(-1n), undefined);
    await nextTurn();
    cq.close();
    const again = reopen(root, 100, 'TopicA', 1);
    assert.equal(again.getMaxOffsetInQueue(), 1000n);
    for (const i of [0, 99, 100, 555, 999])
      assert.equal(again.getEntry(BigInt(i))?.commitLogOffset, BigInt(i * 100));
    again.close();
  });

  test('a repeated entry 0 past maxPhysicOffset is ignored, not appended as a second entry', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 100));
    for (let i = 0; i < 3; i++) put(cq, i);
    // What a re-dispatch of entry 0 looks like when the queue cannot tell its commit-log offset.
    assert.equal(cq.putEntry(10_000n, 50, 0n, 0n), true);
    assert.equal(cq.getMaxOffsetInQueue(), 3n);
    assert.equal(cq.getEntry(0n)?.commitLogOffset, 0n);
    assert.equal(cq.getMaxPhysicOffset(), 250n);
    cq.close();
  });

  test('without auto-commit nothing reaches the file until commit(), yet reads see every entry', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 1000, { autoCommit: false }));
    for (let i = 0; i < 10; i++) put(cq, i);
    assert.ok(
      fileBytes(cq, 0).every((b) => b === 0),
      'nothing written yet',
    );
    assert.equal(cq.getIndexBuffer(0n)?.length, 200);
    cq.commit();
    assert.equal(fileBytes(cq, 0).readBigInt64BE(9 * 20), 900n);
    // More than the in-memory tail holds: older entries are written, reads span disk and memory.
    for (let i = 10; i < 700; i++) put(cq, i);
    const span = cq.getIndexBuffer(0n, 700);
    assert.ok(span);
    for (let i = 0; i < 700; i++) assert.equal(span.readBigInt64BE(i * 20), BigInt(i * 100), `entry ${i}`);
    cq.close();
  });

  test('duplicates are ignored: same record again, or a queue offset below the end', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 10));
    for (let i = 0; i < 5; i++) put(cq, i);
    assert.equal(put(cq, 3), true, 'same physical record again');
    assert.equal(cq.putEntry(10_000n, 10, 0n, 2n), true, 'new record but old queue offset');
    assert.equal(cq.getMaxOffsetInQueue(), 5n);
    assert.equal(cq.getEntry(2n)?.commitLogOffset, 200n);
    assert.equal(cq.getMaxPhysicOffset(), 450n);
    cq.close();
  });

  test('a gap after the first entry is logged as upstream and the entry goes at the end', () => {
    const root = tempRoot();
    const records: LogRecord[] = [];
    const logger = createLogger('t', { level: 'debug', sink: (r) => records.push(r) });
    const cq = new ConsumeQueue('TopicA', 0, { storePath: root, mappedFileSize: 200, logger });
    put(cq, 0);
    put(cq, 1);
    assert.equal(cq.putEntry(500n, 50, 5n, 5n), true);
    assert.equal(cq.getMaxOffsetInQueue(), 3n);
    assert.equal(cq.getEntry(2n)?.commitLogOffset, 500n);
    assert.ok(records.some((r) => r.level === 'error' && r.msg.includes('logic queue order maybe wrong')));
    cq.close();
  });

  test('bad arguments are typed errors', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 10));
    assert.throws(() => cq.putEntry(0n, 0, 0n, 0n), ValidationError);
    assert.throws(() => cq.putEntry(-1n, 10, 0n, 0n), ValidationError);
    assert.throws(() => cq.putEntry(0n, 10, 0n, -1n), ValidationError);
    assert.throws(
      () => new ConsumeQueue('TopicA', 0, { storePath: root, mappedFileSize: 30 }),
      ValidationError,
    );
    cq.close();
  });

  test('bad topic names and queueIds are refused before any file or directory exists', () => {
    const root = tempRoot();
    for (const topic of ['../evil', '..', 'a/b', '', ' ', 'x'.repeat(128), 'a.b', 'a\\b', 'a\u0000b']) {
      assert.throws(
        () => new ConsumeQueue(topic, 0, options(root, 10)),
        ValidationError,
        JSON.stringify(topic),
      );
    }
    for (const queueId of [-1, 1.5, 2 ** 31, Number.NaN]) {
      assert.throws(
        () => new ConsumeQueue('TopicA', queueId, options(root, 10)),
        ValidationError,
        String(queueId),
      );
    }
    assert.throws(() => readdirSync(root), /ENOENT/);
  });

  test('a failed file creation makes the queue refuse later writes, naming the cause', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 10));
    // A plain file where the consumequeue directory should be.
    writeFileSync(root, 'not a directory');
    assert.throws(() => put(cq, 0), SegmentFileError);
    assert.throws(() => put(cq, 1), /refuses writes after an earlier failure/);
  });
});

describe('ConsumeQueue recovery and truncation', () => {
  test('recovery stops at a torn (zeroed) last entry', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 10; i++) put(cq, i);
    cq.close();
    // Entry 9 is the second of file 2 (offset 160): zero it, as if its write never happened.
    const path = join(root, 'TopicA', '0', '00000000000000000160');
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(20), 0, 20, 20);
    closeSync(fd);
    const again = reopen(root, 4);
    assert.equal(again.getMaxOffsetInQueue(), 9n);
    assert.equal(again.getMaxPhysicOffset(), 850n);
    assert.equal(again.getLastOffset(), 850n);
    put(again, 9, 900n);
    assert.equal(again.getEntry(9n)?.commitLogOffset, 900n);
    again.close();
  });

  test('a half-written entry (offset only, size 0) is torn too; a torn first entry empties the file', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 9; i++) put(cq, i);
    cq.close();
    const path = join(root, 'TopicA', '0', '00000000000000000160');
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from('0000000000000384', 'hex'), 0, 8, 0);
    writeSync(fd, Buffer.alloc(12), 0, 12, 8);
    closeSync(fd);
    const again = reopen(root, 4);
    assert.equal(again.getMaxOffsetInQueue(), 8n);
    assert.equal(again.getMaxPhysicOffset(), 750n);
    assert.equal(again.getLastOffset(), -1n, 'last file holds no entry');
    again.close();
  });

  test('recovery of exactly full files keeps them and continues with a new file', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 8; i++) put(cq, i);
    cq.close();
    const again = reopen(root, 4);
    assert.equal(again.getMaxOffsetInQueue(), 8n);
    put(again, 8);
    assert.equal(again.fileNames().length, 3);
    again.close();
  });

  test('truncateDirtyLogicFiles drops entries at or past the commit-log end and zeroes them on disk', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 10; i++) put(cq, i);
    cq.truncateDirtyLogicFiles(450n);
    assert.equal(cq.getMaxOffsetInQueue(), 5n);
    assert.equal(cq.getMaxPhysicOffset(), 450n);
    assert.equal(cq.fileNames().length, 2);
    assert.ok(
      fileBytes(cq, 1)
        .subarray(20)
        .every((b) => b === 0),
      'dropped entries zeroed',
    );
    cq.close();
    const again = reopen(root, 4);
    assert.equal(again.getMaxOffsetInQueue(), 5n, 'truncated entries do not come back');
    put(again, 5, 450n);
    assert.equal(again.getMaxOffsetInQueue(), 6n);
    again.truncateDirtyLogicFiles(0n);
    assert.equal(again.getMaxOffsetInQueue(), 0n);
    assert.deepEqual(again.fileNames(), []);
    assert.equal(again.getMaxPhysicOffset(), 0n);
    again.close();
  });

  test('a truncation that lands on a file boundary deletes the whole later file', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 6; i++) put(cq, i);
    cq.truncateDirtyLogicFiles(400n);
    assert.equal(cq.getMaxOffsetInQueue(), 4n);
    assert.equal(cq.fileNames().length, 1);
    assert.equal(cq.getMaxPhysicOffset(), 350n);
    put(cq, 4, 400n);
    assert.equal(cq.fileNames().length, 2);
    cq.close();
  });

  test('a malformed directory content is a typed error naming the file', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 9; i++) put(cq, i);
    cq.close();
    const dir = join(root, 'TopicA', '0');
    writeFileSync(join(dir, 'junk.tmp'), '');
    assert.throws(
      () => reopen(root, 4),
      (e: unknown) => e instanceof SegmentFileError && e.file.endsWith('junk.tmp'),
    );
    rmSync(join(dir, 'junk.tmp'));
    rmSync(join(dir, '00000000000000000080'));
    assert.throws(() => reopen(root, 4), /file is missing/);
    assert.throws(
      () => reopen(root, 5),
      (e: unknown) =>
        e instanceof SegmentFileError && /80 bytes but the store configuration expects 100/.test(e.message),
    );
  });
});

describe('ConsumeQueue offsets, retention and time lookup', () => {
  test('correctMinOffset moves to the first entry at or past the commit-log minimum', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 10; i++) put(cq, i);
    cq.correctMinOffset(250n);
    assert.equal(cq.getMinOffsetInQueue(), 3n);
    assert.equal(cq.getIndexBuffer(2n), undefined);
    assert.equal(cq.getEntry(3n)?.commitLogOffset, 300n);
    cq.correctMinOffset(901n);
    assert.equal(cq.getMinOffsetInQueue(), 10n, 'no readable entry left: min = max');
    assert.equal(cq.getMessageTotalInQueue(), 0n);
    cq.close();
  });

  test('correctMinOffset never lands on padding entries', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    cq.putEntry(0n, 10, 0n, 2n);
    cq.putEntry(10n, 10, 0n, 3n);
    cq.close();
    const again = reopen(root, 4);
    assert.equal(again.getMinOffsetInQueue(), 0n, 'after load: the first file start');
    again.correctMinOffset(0n);
    assert.equal(again.getMinOffsetInQueue(), 2n);
    again.close();
  });

  test('deleteExpiredFile removes leading files below the minimum, never the last, and corrects the minimum', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 10; i++) put(cq, i);
    assert.equal(cq.deleteExpiredFile(450n), 1);
    assert.equal(cq.fileNames().length, 2);
    assert.equal(cq.getMinOffsetInQueue(), 5n);
    assert.equal(cq.getIndexBuffer(3n), undefined);
    assert.equal(cq.deleteExpiredFile(10_000n), 1, 'the last file stays');
    assert.equal(cq.fileNames().length, 1);
    assert.equal(cq.getMinOffsetInQueue(), 10n);
    assert.equal(cq.getMaxOffsetInQueue(), 10n);
    cq.close();
  });

  test('getLastOffset is the commit-log end of the last entry, -1 when none', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    assert.equal(cq.getLastOffset(), -1n);
    for (let i = 0; i < 5; i++) put(cq, i);
    assert.equal(cq.getLastOffset(), 450n);
    cq.close();
  });

  test('getOffsetInQueueByTime: exact, nearest (ties left), before/after all, below min phy, unreadable', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 100));
    const times = new Map<bigint, bigint>();
    // record i stored at 1000 + 10*i
    for (let i = 0; i < 20; i++) {
      put(cq, i);
      times.set(BigInt(i * 100), BigInt(1000 + 10 * i));
    }
    let picks = 0;
    const pick = (phy: bigint): bigint => {
      picks++;
      return times.get(phy) ?? -1n;
    };
    assert.equal(cq.getOffsetInQueueByTime(1050n, 0n, pick), 5n);
    assert.ok(picks <= 6, `binary search (${picks} reads)`);
    assert.equal(cq.getOffsetInQueueByTime(1053n, 0n, pick), 5n, 'nearer to 1050');
    assert.equal(cq.getOffsetInQueueByTime(1057n, 0n, pick), 6n, 'nearer to 1060');
    assert.equal(cq.getOffsetInQueueByTime(1055n, 0n, pick), 5n, 'tie goes left');
    assert.equal(cq.getOffsetInQueueByTime(1n, 0n, pick), 0n);
    assert.equal(cq.getOffsetInQueueByTime(99_999n, 0n, pick), 19n);
    assert.equal(cq.getOffsetInQueueByTime(1000n, 1000n, pick), 10n, 'entries below the min phy are skipped');
    assert.equal(
      cq.getOffsetInQueueByTime(1050n, 0n, () => -1n),
      0n,
      'unreadable record',
    );
    cq.close();
  });

  test('getOffsetInQueueByTime picks the first file modified at or after the time', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    const times = new Map<bigint, bigint>();
    for (let i = 0; i < 12; i++) {
      put(cq, i);
      times.set(BigInt(i * 100), BigInt(1_000_000 + 1000 * i));
    }
    cq.commit();
    const [f0, f1, f2] = cq.fileNames();
    assert.ok(f0 && f1 && f2);
    // mtimes (seconds): file k last written at the time of its last record
    utimesSync(f0, 1003, 1003);
    utimesSync(f1, 1007, 1007);
    utimesSync(f2, 1011, 1011);
    const pick = (phy: bigint): bigint => times.get(phy) ?? -1n;
    assert.equal(cq.getOffsetInQueueByTime(1_005_000n, 0n, pick), 5n);
    assert.equal(cq.getOffsetInQueueByTime(1_005_400n, 0n, pick), 5n);
    assert.equal(cq.getOffsetInQueueByTime(1_009_000n, 0n, pick), 9n);
    assert.equal(cq.getOffsetInQueueByTime(2_000_000n, 0n, pick), 11n, 'after every file: the last one');
    cq.close();
  });

  test('rollNextFile is the first offset of the next file', () => {
    const cq = new ConsumeQueue('TopicA', 0, options(tempRoot(), 4));
    assert.equal(cq.rollNextFile(0n), 4n);
    assert.equal(cq.rollNextFile(5n), 8n);
    assert.equal(cq.rollNextFile(8n), 12n);
  });

  test('flush syncs dirty files; with flushLeastPages only files with enough dirty pages', async () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 1000));
    for (let i = 0; i < 10; i++) put(cq, i);
    await cq.flush(1);
    await cq.flush();
    await Promise.all([cq.flush(), cq.flush()]);
    cq.close();
    assert.equal(reopen(root, 1000).getMaxOffsetInQueue(), 10n);
  });

  test('destroy deletes the files and the queue directory', () => {
    const root = tempRoot();
    const cq = new ConsumeQueue('TopicA', 0, options(root, 4));
    for (let i = 0; i < 6; i++) put(cq, i);
    cq.destroy();
    assert.throws(() => readdirSync(join(root, 'TopicA')), /ENOENT/);
    assert.equal(cq.getMaxOffsetInQueue(), 0n);
    assert.equal(cq.getMaxPhysicOffset(), -1n);
  });
});
