import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { indexKeyHash } from '../../../src/common/message/tag-hash.js';
import {
  INDEX_ENTRY_SIZE,
  INDEX_HEADER_SIZE,
  IndexFile,
  indexFileSize,
} from '../../../src/store/index-file.js';
import { SegmentFileError } from '../../../src/store/segment-files.js';
import { annotated } from '../message/annotated.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-index-'));
  roots.push(dir);
  return join(dir, 'index');
}

const T0 = 1_700_000_000_123n;

function select(f: IndexFile, key: string, maxNum = 100, begin = 0n, end = 2n ** 62n): bigint[] {
  const out: bigint[] = [];
  f.selectPhyOffset(out, key, maxNum, begin, end);
  return out;
}

describe('IndexFile layout', () => {
  test('header, slot and entries at their byte positions (4 slots, 5 entries)', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, '20240102030405006', 4, 5, 0n, 0n);
    // "T#k1".hashCode() = 2539445 = 0x26bfb5 -> slot 1; "T#k5" = 0x26bfb9 -> slot 1 too
    assert.equal(indexKeyHash('T#k1'), 0x26bfb5);
    assert.equal(indexKeyHash('T#k5') % 4, 1);
    assert.equal(f.putKey('T#k1', 0x1000n, T0), true);
    assert.equal(f.putKey('T#k5', 0x2000n, T0 + 5_999n), true);
    f.commit();
    const bytes = readFileSync(join(dir, '20240102030405006'));
    assert.equal(bytes.length, indexFileSize(4, 5));
    assert.equal(bytes.length, 40 + 4 * 4 + 5 * 20);
    assert.deepEqual(
      bytes.subarray(0, INDEX_HEADER_SIZE),
      annotated(
        ['beginTimestamp', T0.toString(16).padStart(16, '0')],
        ['endTimestamp', (T0 + 5_999n).toString(16).padStart(16, '0')],
        ['beginPhyOffset', '0000000000001000'],
        ['endPhyOffset', '0000000000002000'],
        ['hashSlotCount', '00000001'],
        ['indexCount', '00000003'],
      ),
    );
    assert.deepEqual(
      bytes.subarray(40, 56),
      annotated(
        ['slot 0', '00000000'],
        ['slot 1 -> entry 2', '00000002'],
        ['slot 2', '00000000'],
        ['slot 3', '00000000'],
      ),
    );
    assert.ok(
      bytes.subarray(56, 76).every((b) => b === 0),
      'entry 0 is never used',
    );
    assert.deepEqual(
      bytes.subarray(76, 96),
      annotated(
        ['keyHash', '0026bfb5'],
        ['phyOffset', '0000000000001000'],
        ['timeDiff', '00000000'],
        ['prev', '00000000'],
      ),
    );
    assert.deepEqual(
      bytes.subarray(96, 116),
      annotated(
        ['keyHash', '0026bfb9'],
        ['phyOffset', '0000000000002000'],
        ['timeDiff 5 s', '00000005'],
        ['prev', '00000001'],
      ),
    );
    f.close();
  });

  test('a file following a full one starts with its end offset and time; its first entry has diff 0 (ours)', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, '20240102030405006', 4, 5, 0x500n, T0);
    let header = readFileSync(join(dir, '20240102030405006')).subarray(0, 40);
    assert.deepEqual(
      header,
      annotated(
        ['begin = prev end', T0.toString(16).padStart(16, '0')],
        ['end', T0.toString(16).padStart(16, '0')],
        ['beginPhy', '0000000000000500'],
        ['endPhy', '0000000000000500'],
        ['hashSlotCount', '00000000'],
        ['indexCount (not yet written)', '00000000'],
      ),
    );
    f.putKey('T#k1', 0x600n, T0 + 3_000n);
    f.commit();
    const bytes = readFileSync(join(dir, '20240102030405006'));
    header = bytes.subarray(0, 40);
    assert.equal(header.readBigInt64BE(0), T0 + 3_000n, 'begin time moves to the first entry');
    assert.equal(header.readBigInt64BE(16), 0x600n);
    assert.equal(bytes.readInt32BE(76 + 12), 0, 'measured from its own time (upstream would store 3)');
    f.close();
  });

  test('reopening reads the header; entries and chains survive', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, 'a', 4, 10, 0n, 0n);
    for (let i = 0; i < 8; i++) f.putKey(`T#k${1 + (i % 4)}`, BigInt(i * 100), T0 + BigInt(i * 1000));
    f.close();
    const g = IndexFile.open(join(dir, 'a'), 4, 10);
    assert.equal(g.getIndexCount(), 9);
    assert.equal(g.getHashSlotCount(), 4);
    assert.equal(g.getBeginPhyOffset(), 0n);
    assert.equal(g.getEndPhyOffset(), 700n);
    assert.equal(g.getBeginTimestamp(), T0);
    assert.equal(g.getEndTimestamp(), T0 + 7000n);
    assert.deepEqual(select(g, 'T#k2'), [500n, 100n]);
    g.putKey('T#k2', 800n, T0 + 8000n);
    assert.deepEqual(select(g, 'T#k2'), [800n, 500n, 100n]);
    g.close();
  });

  test('wrong dimensions, a count beyond the file, and bad settings are typed errors', () => {
    const dir = tempDir();
    IndexFile.create(dir, 'a', 4, 5, 0n, 0n).close();
    assert.throws(() => IndexFile.open(join(dir, 'a'), 8, 5), SegmentFileError);
    const fd = openSync(join(dir, 'a'), 'r+');
    writeSync(fd, Buffer.from('00000009', 'hex'), 0, 4, 36);
    closeSync(fd);
    assert.throws(
      () => IndexFile.open(join(dir, 'a'), 4, 5),
      (e: unknown) => e instanceof SegmentFileError && e.offset === 36 && /index count 9/.test(e.message),
    );
    assert.throws(() => IndexFile.create(dir, 'b', 0, 5, 0n, 0n), ValidationError);
    assert.throws(() => IndexFile.create(dir, 'b', 4, 1, 0n, 0n), ValidationError);
  });
});

describe('IndexFile lookups', () => {
  test('keys sharing a slot chain are told apart by their hash; equal hashes are both returned (as upstream)', () => {
    const f = IndexFile.create(tempDir(), 'a', 4, 20, 0n, 0n);
    // "Aa" and "BB" have the same Java hashCode.
    assert.equal(indexKeyHash('T#Aa'), indexKeyHash('T#BB'));
    f.putKey('T#k1', 1n, T0);
    f.putKey('T#Aa', 2n, T0);
    f.putKey('T#k5', 3n, T0);
    f.putKey('T#BB', 4n, T0);
    f.putKey('T#k1', 5n, T0);
    assert.deepEqual(select(f, 'T#k1'), [5n, 1n]);
    assert.deepEqual(select(f, 'T#k5'), [3n]);
    assert.deepEqual(select(f, 'T#Aa'), [4n, 2n]);
    assert.deepEqual(select(f, 'T#k9'), []);
    assert.deepEqual(select(f, 'T#k1', 1), [5n], 'maxNum bounds the result');
    f.close();
  });

  test('time range: entries outside [begin, end] are skipped and older ones are not visited', () => {
    const f = IndexFile.create(tempDir(), 'a', 1, 20, 0n, 0n);
    for (let i = 0; i < 6; i++) f.putKey('T#k', BigInt(i), T0 + BigInt(i * 10_000));
    assert.deepEqual(select(f, 'T#k'), [5n, 4n, 3n, 2n, 1n, 0n]);
    assert.deepEqual(select(f, 'T#k', 100, T0 + 15_000n, T0 + 40_000n), [4n, 3n, 2n]);
    assert.deepEqual(select(f, 'T#k', 100, T0 + 60_000n, T0 + 90_000n), []);
    assert.equal(f.isTimeMatched(T0 + 1n, T0 + 2n), true);
    assert.equal(f.isTimeMatched(T0 - 10n, T0 + 99_000n), true);
    assert.equal(f.isTimeMatched(T0 + 50_001n, T0 + 99_000n), false);
    assert.equal(f.isTimeMatched(0n, T0 - 1n), false);
    f.close();
  });

  test('a full file refuses keys; entries are read back from the buffer before they are written', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, 'a', 2, 3, 0n, 0n);
    assert.equal(f.putKey('T#x', 1n, T0), true);
    assert.equal(f.isWriteFull(), false);
    assert.equal(f.putKey('T#x', 2n, T0), true);
    assert.equal(f.isWriteFull(), true);
    assert.equal(f.putKey('T#x', 3n, T0), false);
    assert.ok(
      readFileSync(join(dir, 'a'))
        .subarray(48)
        .every((b) => b === 0),
      'nothing written yet',
    );
    assert.deepEqual(select(f, 'T#x'), [2n, 1n]);
    f.close();
  });

  test('damaged chains end the walk instead of looping', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, 'a', 1, 10, 0n, 0n);
    for (let i = 0; i < 4; i++) f.putKey('T#k', BigInt(i), T0);
    f.close();
    // entry 2 points forward to entry 3, which points back to 2: a loop
    const fd = openSync(join(dir, 'a'), 'r+');
    const entry = (n: number): number => INDEX_HEADER_SIZE + 4 + n * INDEX_ENTRY_SIZE;
    writeSync(fd, Buffer.from('00000003', 'hex'), 0, 4, entry(2) + 16);
    closeSync(fd);
    const g = IndexFile.open(join(dir, 'a'), 1, 10);
    assert.deepEqual(select(g, 'T#k', 1000), [3n, 2n, 1n]);
    g.close();
  });

  test('a negative time diff ends the walk (upstream)', () => {
    const dir = tempDir();
    const f = IndexFile.create(dir, 'a', 1, 10, 0n, 0n);
    for (let i = 0; i < 3; i++) f.putKey('T#k', BigInt(i), T0);
    f.close();
    const fd = openSync(join(dir, 'a'), 'r+');
    writeSync(fd, Buffer.from('ffffffff', 'hex'), 0, 4, INDEX_HEADER_SIZE + 4 + 2 * INDEX_ENTRY_SIZE + 12);
    closeSync(fd);
    const g = IndexFile.open(join(dir, 'a'), 1, 10);
    assert.deepEqual(select(g, 'T#k'), [2n]);
    g.close();
  });
});
