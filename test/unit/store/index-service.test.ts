import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import {
  MessageConst,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
} from '../../../src/common/message/message-const.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { DispatchRequest } from '../../../src/store/dispatch-request.js';
import {
  IndexService,
  type IndexServiceConfig,
  timeMillisToHumanString,
} from '../../../src/store/index-service.js';
import { SegmentFileError } from '../../../src/store/segment-files.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const quiet = createLogger('test', { level: 'silent' });
const T0 = 1_700_000_000_000;
const ALL: readonly [bigint, bigint] = [0n, 2n ** 62n];

function config(maxIndexNum = 100, maxHashSlotNum = 8): IndexServiceConfig {
  const root = mkdtempSync(join(tmpdir(), 'rmq-idx-'));
  roots.push(root);
  return { storePathRootDir: root, maxHashSlotNum, maxIndexNum };
}

function props(keys: string | undefined, uniqKey: string | undefined): string {
  let s = '';
  if (keys !== undefined)
    s += `${MessageConst.PROPERTY_KEYS}${NAME_VALUE_SEPARATOR}${keys}${PROPERTY_SEPARATOR}`;
  if (uniqKey !== undefined) {
    s += `${MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX}${NAME_VALUE_SEPARATOR}${uniqKey}${PROPERTY_SEPARATOR}`;
  }
  return s;
}

/** Record at `phy` stored at T0 + phy ms. */
function record(topic: string, phy: number, keys?: string, uniqKey?: string, sysFlag = 0): DispatchRequest {
  return new DispatchRequest(
    topic,
    0,
    BigInt(phy),
    100,
    0n,
    BigInt(T0 + phy),
    0n,
    sysFlag,
    0n,
    props(keys, uniqKey),
  );
}

function query(
  svc: IndexService,
  topic: string,
  key: string,
  maxNum = 64,
  begin = ALL[0],
  end = ALL[1],
): bigint[] {
  return svc.queryOffset(topic, key, maxNum, begin, end).phyOffsets;
}

describe('IndexService', () => {
  test('indexes UNIQ_KEY and every KEYS token as topic#key', () => {
    const svc = new IndexService(config(), { logger: quiet });
    svc.buildIndex(record('TopicA', 0, 'k1  k2', 'U1'));
    svc.buildIndex(record('TopicA', 100, 'k2'));
    svc.buildIndex(record('TopicB', 200, 'k1'));
    svc.buildIndex(record('TopicA', 300, undefined, 'U2'));
    assert.deepEqual(query(svc, 'TopicA', 'k1'), [0n]);
    assert.deepEqual(query(svc, 'TopicA', 'k2'), [100n, 0n]);
    assert.deepEqual(query(svc, 'TopicB', 'k1'), [200n]);
    assert.deepEqual(query(svc, 'TopicA', 'U1'), [0n]);
    assert.deepEqual(query(svc, 'TopicA', 'U2'), [300n]);
    assert.deepEqual(query(svc, 'TopicA', ''), []);
    const r = svc.queryOffset('TopicA', 'k1', 10, ...ALL);
    assert.equal(r.indexLastUpdatePhyoffset, 300n);
    assert.equal(r.indexLastUpdateTimestamp, BigInt(T0 + 300));
    assert.equal(svc.indexFiles()[0]?.getIndexCount(), 7, '6 keys');
  });

  test('rolled-back records are skipped, prepared ones indexed, records behind the last file end ignored', () => {
    const svc = new IndexService(config(), { logger: quiet });
    svc.buildIndex(record('T', 0, 'a', undefined, MessageSysFlag.TRANSACTION_PREPARED_TYPE));
    svc.buildIndex(record('T', 100, 'b', undefined, MessageSysFlag.TRANSACTION_ROLLBACK_TYPE));
    svc.buildIndex(record('T', 200, 'c', undefined, MessageSysFlag.TRANSACTION_COMMIT_TYPE));
    svc.buildIndex(record('T', 150, 'd'));
    assert.deepEqual(query(svc, 'T', 'a'), [0n]);
    assert.deepEqual(query(svc, 'T', 'b'), []);
    assert.deepEqual(query(svc, 'T', 'c'), [200n]);
    assert.deepEqual(query(svc, 'T', 'd'), [], 'already past it: a re-dispatch');
  });

  test('rolls to new files named by local creation time, unique and ascending, syncing full ones', async () => {
    const clock = new ManualClock(new Date(2024, 0, 2, 3, 4, 5, 6).getTime());
    const flushed: bigint[] = [];
    const svc = new IndexService(config(4, 2), {
      logger: quiet,
      clock,
      onIndexFileFlushed: (ts) => {
        flushed.push(ts);
      },
    });
    // 3 entries per file; 10 keys of one topic
    for (let i = 0; i < 10; i++) svc.buildIndex(record('T', i * 100, `k${i % 2}`));
    assert.deepEqual(svc.fileNames(), [
      '20240102030405006',
      '20240102030405007',
      '20240102030405008',
      '20240102030405009',
    ]);
    await svc.whenIdle();
    assert.deepEqual(flushed, [BigInt(T0 + 200), BigInt(T0 + 500), BigInt(T0 + 800)]);
    assert.deepEqual(query(svc, 'T', 'k0'), [800n, 600n, 400n, 200n, 0n], 'newest first across files');
    assert.deepEqual(query(svc, 'T', 'k1', 3), [900n, 700n, 500n]);
    const second = svc.indexFiles()[1];
    assert.equal(second?.getBeginPhyOffset(), 300n);
    assert.equal(second?.getEndPhyOffset(), 500n);
    clock.advance(1000);
    svc.buildIndex(record('T', 1000, 'x'));
    svc.buildIndex(record('T', 1100, 'x'));
    svc.buildIndex(record('T', 1200, 'x'));
    assert.equal(svc.fileNames().at(-1), '20240102030406006');
    await svc.shutdown();
  });

  test('the time range limits the files searched and the entries returned', () => {
    const svc = new IndexService(config(4, 2), { logger: quiet });
    for (let i = 0; i < 12; i++) svc.buildIndex(record('T', i * 1000, 'k'));
    // files: [0,2000] [3000,5000] [6000,8000] [9000,11000] (ms after T0)
    const between = query(svc, 'T', 'k', 64, BigInt(T0 + 4000), BigInt(T0 + 9000));
    assert.deepEqual(between, [9000n, 8000n, 7000n, 6000n, 5000n, 4000n]);
    assert.deepEqual(query(svc, 'T', 'k', 64, BigInt(T0 + 20_000), BigInt(T0 + 30_000)), []);
  });

  test('a query returns at most maxMsgsNumBatch offsets', () => {
    const cfg = { ...config(200), maxMsgsNumBatch: 5 };
    const svc = new IndexService(cfg, { logger: quiet });
    for (let i = 0; i < 20; i++) svc.buildIndex(record('T', i * 100, 'k'));
    assert.deepEqual(query(svc, 'T', 'k', 100), [1900n, 1800n, 1700n, 1600n, 1500n]);
    assert.deepEqual(query(svc, 'T', 'k', 2), [1900n, 1800n]);
  });

  test('deleteExpiredFile removes leading files wholly below the minimum, never the last', () => {
    const svc = new IndexService(config(4, 2), { logger: quiet });
    for (let i = 0; i < 10; i++) svc.buildIndex(record('T', i * 100, 'k'));
    assert.equal(svc.deleteExpiredFile(200n), 0, 'first file ends at 200');
    assert.equal(svc.deleteExpiredFile(201n), 1);
    assert.equal(svc.deleteExpiredFile(10_000n), 2);
    assert.equal(svc.indexFiles().length, 1);
    assert.equal(readdirSync(svc.storePath).length, 1);
    assert.deepEqual(query(svc, 'T', 'k'), [900n]);
  });

  test('load keeps every file after a clean exit; after a crash drops those newer than the checkpoint', async () => {
    const cfg = config(4, 2);
    const svc = new IndexService(cfg, { logger: quiet });
    for (let i = 0; i < 10; i++) svc.buildIndex(record('T', i * 100, 'k'));
    await svc.shutdown();

    const clean = new IndexService(cfg, { logger: quiet });
    clean.load(true, 0n);
    assert.equal(clean.indexFiles().length, 4);
    assert.deepEqual(query(clean, 'T', 'k'), [900n, 800n, 700n, 600n, 500n, 400n, 300n, 200n, 100n, 0n]);
    await clean.shutdown();

    const crashed = new IndexService(cfg, { logger: quiet });
    crashed.load(false, BigInt(T0 + 500));
    assert.equal(crashed.indexFiles().length, 2);
    assert.equal(readdirSync(crashed.storePath).length, 2);
    assert.deepEqual(query(crashed, 'T', 'k'), [500n, 400n, 300n, 200n, 100n, 0n]);
    // the index continues after the last kept file
    crashed.buildIndex(record('T', 600, 'k'));
    assert.deepEqual(query(crashed, 'T', 'k', 2), [600n, 500n]);
    await crashed.shutdown();
  });

  test('truncateDirty drops files holding records at or past the commit-log end', () => {
    const svc = new IndexService(config(4, 2), { logger: quiet });
    for (let i = 0; i < 10; i++) svc.buildIndex(record('T', i * 100, 'k'));
    assert.equal(svc.truncateDirty(600n), 2);
    assert.equal(svc.indexFiles().length, 2);
    svc.buildIndex(record('T', 600, 'k'));
    assert.deepEqual(query(svc, 'T', 'k', 3), [600n, 500n, 400n]);
    assert.equal(svc.truncateDirty(0n), 3);
    assert.deepEqual(svc.indexFiles(), []);
  });

  test('a restart continues naming after the last file even if the clock went back', async () => {
    const cfg = config(4, 2);
    const clock = new ManualClock(new Date(2030, 5, 6, 7, 8, 9, 10).getTime());
    const svc = new IndexService(cfg, { logger: quiet, clock });
    svc.buildIndex(record('T', 0, 'k'));
    await svc.shutdown();
    const back = new IndexService(cfg, {
      logger: quiet,
      clock: new ManualClock(new Date(2020, 0, 1).getTime()),
    });
    back.load(true, 0n);
    for (let i = 1; i < 5; i++) back.buildIndex(record('T', i * 100, 'k'));
    assert.deepEqual(back.fileNames(), ['20300606070809010', '20300606070809011']);
    await back.shutdown();
  });

  test('foreign files in index/ and a failed write are typed errors; a failed index refuses writes', () => {
    const cfg = config();
    const svc = new IndexService(cfg, { logger: quiet });
    svc.buildIndex(record('T', 0, 'k'));
    svc.commit();
    writeFileSync(join(svc.storePath, 'notes.txt'), '');
    assert.throws(
      () => new IndexService(cfg, { logger: quiet }).load(true, 0n),
      (e: unknown) => e instanceof SegmentFileError && e.file.endsWith('notes.txt'),
    );
    const blocked = config();
    writeFileSync(join(blocked.storePathRootDir, 'index'), 'not a directory');
    const broken = new IndexService(blocked, { logger: quiet });
    assert.throws(() => broken.buildIndex(record('T', 0, 'k')), SegmentFileError);
    assert.throws(() => broken.buildIndex(record('T', 100, 'k')), /refuses writes after an earlier failure/);
  });

  test('timeMillisToHumanString is yyyyMMddHHmmssSSS in local time', () => {
    assert.equal(
      timeMillisToHumanString(new Date(2024, 11, 31, 23, 59, 58, 7).getTime()),
      '20241231235958007',
    );
    assert.equal(timeMillisToHumanString(new Date(999, 0, 1, 0, 0, 0, 0).getTime()), '09990101000000000');
  });
});
