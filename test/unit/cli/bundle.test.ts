/**
 * The bundle of the `rmq` command (scripts/bundle-cli.mjs, which bin/rmq.js runs): every file it
 * names relative to its own location is there, and the CRC worker that a recovery starts from it runs
 * and confirms a commit log's records as the unbundled one does.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createLogger } from '../../../src/common/logger.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { CRC_SLOTS, CrcSlot, type CrcWorkerData } from '../../../src/store/commit-log-crc-worker.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { inner, smallConfig, tempStoreDir } from '../store/commit-log-support.js';

/** This build's bundle: test/unit/cli -> <build>/bundle/cli. */
const BUNDLE = fileURLToPath(new URL('../../../bundle/cli/', import.meta.url));
const FILE = 16 * 1024;
const quiet = createLogger('test', { level: 'silent' });

function bundleFiles(): string[] {
  assert.ok(
    existsSync(join(BUNDLE, 'main.js')),
    `no bundle in ${BUNDLE}: run node scripts/bundle-cli.mjs <build dir> (npm run build does)`,
  );
  return readdirSync(BUNDLE).filter((f) => f.endsWith('.js'));
}

test('every file the bundle names relative to itself is in the bundle', () => {
  const files = bundleFiles();
  const named = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(BUNDLE, f), 'utf8');
    for (const m of text.matchAll(/new URL\("\.\/([^"]+)", import\.meta\.url\)/g)) named.add(m[1]!);
    for (const m of text.matchAll(/from "\.\/([^"]+)"/g)) named.add(m[1]!);
    for (const m of text.matchAll(/import\("\.\/([^"]+)"\)/g)) named.add(m[1]!);
  }
  assert.ok(named.has('commit-log-crc-worker.js'), 'the CRC worker is started from the bundle');
  for (const name of named) assert.ok(files.includes(name), `${name} is named but not in the bundle`);
});

test("the bundle's CRC worker confirms every record of a commit log", async () => {
  bundleFiles();
  const { root, cleanup } = tempStoreDir();
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), { logger: quiet });
  const slots = new BigInt64Array(new SharedArrayBuffer(CRC_SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
  let end = 0;
  let worker: Worker | undefined;
  try {
    cl.recoverNormally();
    for (let i = 0; i < 40; i++) {
      const r = await cl.putMessage(inner({ body: `${i}:`.padEnd(300 + ((i * 37) % 900), 'x') }));
      assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
      end = Number(r.appendMessageResult!.wroteOffset) + r.appendMessageResult!.wroteBytes;
    }
    await cl.shutdown();
    const dir = join(root, 'commitlog');
    const data: CrcWorkerData = {
      kind: 'commit-log-crc',
      files: readdirSync(dir)
        .sort()
        .map((name) => ({ path: join(dir, name), fileFromOffset: Number(name), fileSize: FILE })),
      shared: slots.buffer as SharedArrayBuffer,
      chunkSize: 4096,
    };
    assert.ok(data.files.length >= 2, 'the log spans files');
    worker = new Worker(join(BUNDLE, 'commit-log-crc-worker.js'), { workerData: data });
    const failed = new Promise<never>((_, reject) => worker?.once('error', reject));
    failed.catch(() => {});
    const deadline = Date.now() + 20_000;
    while (Number(Atomics.load(slots, CrcSlot.VALIDATED)) < end && Date.now() < deadline) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 5)), failed]);
    }
    assert.equal(Number(Atomics.load(slots, CrcSlot.VALIDATED)), end);
  } finally {
    Atomics.store(slots, CrcSlot.STOP, 1n);
    await worker?.terminate();
    cleanup();
  }
});
