import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LogRecord } from '../../../src/common/logger.js';
import { createLogger } from '../../../src/common/logger.js';
import { abortFileExists, createAbortFile, deleteAbortFile } from '../../../src/store/abort-file.js';
import { CHECKPOINT_FILE_SIZE, StoreCheckpoint } from '../../../src/store/checkpoint.js';
import { tempStoreDir } from './commit-log-support.js';

test('a new checkpoint reads zeros and is written in upstream layout', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const path = join(root, 'checkpoint');
    const cp = new StoreCheckpoint(path);
    assert.equal(cp.getPhysicMsgTimestamp(), 0n);
    assert.equal(cp.getMinTimestamp(), 0n, 'never below 0');
    cp.setPhysicMsgTimestamp(0x0102030405060708n);
    cp.setLogicsMsgTimestamp(1_700_000_010_000n);
    cp.setIndexMsgTimestamp(1_700_000_005_000n);
    cp.flush();
    const bytes = fs.readFileSync(path);
    assert.equal(bytes.length, CHECKPOINT_FILE_SIZE);
    // physicMsgTimestamp @0, logicsMsgTimestamp @8, indexMsgTimestamp @16, big-endian int64.
    assert.deepEqual(bytes.subarray(0, 8), Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]));
    assert.equal(bytes.readBigInt64BE(8), 1_700_000_010_000n);
    assert.equal(bytes.readBigInt64BE(16), 1_700_000_005_000n);
    assert.ok(bytes.subarray(24).every((b) => b === 0));
    assert.ok(!fs.existsSync(`${path}.tmp`), 'the temp file was renamed over the checkpoint');

    const again = new StoreCheckpoint(path);
    assert.equal(again.getPhysicMsgTimestamp(), 0x0102030405060708n);
    assert.equal(again.getLogicsMsgTimestamp(), 1_700_000_010_000n);
    // min(physic, logics) - 3 s, then not after the index timestamp.
    assert.equal(again.getMinTimestamp(), 1_700_000_007_000n);
    assert.equal(again.getMinTimestampIndex(), 1_700_000_005_000n);
  } finally {
    cleanup();
  }
});

test('flushAsync replaces the file atomically; calls run in order', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const path = join(root, 'checkpoint');
    fs.writeFileSync(`${path}.tmp`, 'stale leftover of a crash');
    const cp = new StoreCheckpoint(path);
    cp.setPhysicMsgTimestamp(5n);
    const first = cp.flushAsync();
    cp.setPhysicMsgTimestamp(6n);
    const second = cp.flushAsync();
    await Promise.all([first, second]);
    assert.equal(fs.readFileSync(path).readBigInt64BE(0), 6n);
    assert.equal(fs.readFileSync(path).length, CHECKPOINT_FILE_SIZE);
    assert.ok(!fs.existsSync(`${path}.tmp`));
    cp.shutdown();
  } finally {
    cleanup();
  }
});

test('a checkpoint shorter than its fields reads the missing ones as 0 and warns', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const path = join(root, 'checkpoint');
    const short = Buffer.alloc(12);
    short.writeBigInt64BE(77n, 0);
    fs.writeFileSync(path, short);
    const lines: LogRecord[] = [];
    const cp = new StoreCheckpoint(path, {
      logger: createLogger('t', { level: 'debug', sink: (r) => lines.push(r) }),
    });
    assert.equal(cp.getPhysicMsgTimestamp(), 77n);
    assert.equal(cp.getLogicsMsgTimestamp(), 0n);
    assert.equal(lines.length, 1);
    assert.match(lines[0]?.msg ?? '', /shorter than 24 bytes/);
  } finally {
    cleanup();
  }
});

test('the abort marker is created at start and deleted on a clean shutdown', () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const store = join(root, 'store');
    assert.equal(abortFileExists(store), false);
    createAbortFile(store);
    assert.equal(abortFileExists(store), true);
    createAbortFile(store);
    assert.equal(fs.readFileSync(join(store, 'abort')).length, 0);
    deleteAbortFile(store);
    assert.equal(abortFileExists(store), false);
    deleteAbortFile(store);
  } finally {
    cleanup();
  }
});
