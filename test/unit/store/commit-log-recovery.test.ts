import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { MESSAGE_MAGIC_CODE_V2, MessageExt } from '../../../src/common/message/message.js';
import { encodeMessage } from '../../../src/common/message/stored-format.js';
import { StoreCheckpoint } from '../../../src/store/checkpoint.js';
import { CommitLog, type CommitLogOptions } from '../../../src/store/commit-log.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { offset2FileName } from '../../../src/store/mapped-file.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { StoreCorruptionError } from '../../../src/store/store-error.js';
import { type InnerInit, inner, STORE_HOST, smallConfig, tempStoreDir } from './commit-log-support.js';

const FILE = 4096;
const quiet = createLogger('test', { level: 'silent' });

interface Item {
  kind: 'record' | 'blank';
  start: number;
  end: number;
}

/** Writes `inits` through a CommitLog (4 KiB files), shuts down cleanly, returns the records and blanks. */
async function buildLog(root: string, inits: InnerInit[], clock = new ManualClock()): Promise<Item[]> {
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), { clock, logger: quiet });
  cl.recoverNormally();
  const items: Item[] = [];
  for (const init of inits) {
    const r = await cl.putMessage(inner(init));
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    const a = r.appendMessageResult!;
    const start = Number(a.wroteOffset);
    const last = items.at(-1);
    if (last !== undefined && last.end !== start) items.push({ kind: 'blank', start: last.end, end: start });
    items.push({ kind: 'record', start, end: start + a.wroteBytes });
    clock.advance(1);
  }
  await cl.shutdown();
  return items;
}

function open(
  root: string,
  overrides: Partial<MessageStoreConfig> = {},
  options: CommitLogOptions = {},
): CommitLog {
  return new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE, ...overrides }), {
    logger: quiet,
    ...options,
  });
}

function commitLogDir(root: string): string {
  return join(root, 'commitlog');
}

function readFiles(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of fs.readdirSync(commitLogDir(root)))
    out.set(name, fs.readFileSync(join(commitLogDir(root), name)));
  return out;
}

function writeFiles(root: string, files: Map<string, Buffer>): void {
  fs.rmSync(commitLogDir(root), { recursive: true, force: true });
  fs.mkdirSync(commitLogDir(root));
  for (const [name, data] of files) fs.writeFileSync(join(commitLogDir(root), name), data);
}

/** The log as one array (files are contiguous from 0 in these tests). */
function concat(files: Map<string, Buffer>): Buffer {
  return Buffer.concat([...files.keys()].sort().map((k) => files.get(k)!));
}

function split(log: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let o = 0; o < log.length; o += FILE)
    out.set(offset2FileName(o), Buffer.from(log.subarray(o, o + FILE)));
  return out;
}

/** Where recovery must end when everything from byte `cut` on reads as zeros. */
function expectedEnd(items: Item[], original: Buffer, cut: number): number {
  let end = 0;
  for (const item of items) {
    const from = Math.max(cut, item.start);
    const intact = from >= item.end || original.subarray(from, item.end).every((b) => b === 0);
    const checked = item.kind === 'blank' ? Math.min(item.end, item.start + 8) : item.end;
    const blankIntact =
      item.kind === 'blank' &&
      (cut >= checked || original.subarray(Math.max(cut, item.start), checked).every((b) => b === 0));
    if (item.kind === 'record' ? !intact : !blankIntact) return item.start;
    end = item.end;
  }
  return end;
}

const varied: InnerInit[] = [
  { body: 'a'.repeat(700) },
  { body: 'b'.repeat(900), props: { TAGS: 'x' } },
  { body: 'c'.repeat(500), queueId: 1 },
  { body: 'd'.repeat(1200) },
  { body: 'e'.repeat(600) },
  { body: 'f'.repeat(1000), topic: 'Other' },
  // The last three: one whose body ends in zero bytes, one without properties, one plain.
  { body: Buffer.concat([Buffer.from('g'.repeat(300)), Buffer.alloc(40)]) },
  { body: 'h'.repeat(250), propertiesString: '' },
  { body: 'i'.repeat(280), props: { TAGS: 'last', KEYS: 'k' } },
];

async function tornTailAtEveryByte(inits: InnerInit[], shorten: boolean): Promise<number> {
  const { root, cleanup } = tempStoreDir();
  try {
    const items = await buildLog(root, inits);
    const pristine = readFiles(root);
    const original = concat(pristine);
    const records = items.filter((i) => i.kind === 'record');
    const from = records.at(-3)!.start;
    const to = records.at(-1)!.end;
    let cases = 0;
    for (let cut = from; cut <= to; cut++) {
      const damaged = Buffer.from(original);
      damaged.fill(0, cut);
      const files = split(damaged);
      if (shorten) {
        // The torn file ends at the cut (as if its tail was never allocated); later files are empty.
        const name = offset2FileName(cut - (cut % FILE));
        files.set(name, Buffer.from(files.get(name)!.subarray(0, cut % FILE)));
      }
      writeFiles(root, files);
      const want = expectedEnd(items, original, cut);
      const cl = open(root);
      const result = cl.recoverAbnormally();
      assert.equal(result.processOffset, want, `cut at ${cut}`);
      assert.equal(cl.getMaxOffset(), want, `cut at ${cut}`);
      for (const r of records) {
        if (r.end > want) break;
        assert.deepEqual(
          cl.getMessage(r.start, r.end - r.start),
          original.subarray(r.start, r.end),
          `cut at ${cut}`,
        );
      }
      if (cut % 41 === 0) {
        // Appending after recovery continues right at the end of the intact prefix.
        const put = await cl.putMessage(inner({ body: 'after' }));
        const at = Number(put.appendMessageResult!.wroteOffset);
        assert.ok(
          at === want || at === want - (want % FILE) + FILE,
          `cut at ${cut}: appended at ${at}, end ${want}`,
        );
      }
      await cl.shutdown({ flush: false });
      // Nothing of the torn tail is left behind the write position.
      const after = concat(readFiles(root));
      assert.ok(
        after.subarray(want).every((b) => b === 0) || cut % 41 === 0,
        `cut at ${cut}: stale bytes after the end`,
      );
      cases++;
    }
    return cases;
  } finally {
    cleanup();
  }
}

test('a torn tail cut at every byte of the last three records recovers exactly the intact prefix', async () => {
  const cases = await tornTailAtEveryByte(varied, false);
  assert.ok(cases > 1000, `${cases} cuts`);
});

test('the same when the torn file itself was cut short', async () => {
  const cases = await tornTailAtEveryByte(varied, true);
  assert.ok(cases > 1000);
});

test('a torn tail across a file boundary (record, BLANK, next file) recovers the intact prefix', async () => {
  // Fills file 0 so that its last record is followed by a BLANK, then two records in file 1.
  const inits: InnerInit[] = [
    { body: 'a'.repeat(1500) },
    { body: 'b'.repeat(1500) },
    { body: 'c'.repeat(600) },
    { body: 'd'.repeat(700) },
    { body: 'e'.repeat(300), propertiesString: '' },
  ];
  const cases = await tornTailAtEveryByte(inits, false);
  assert.ok(cases > 1000);
});

async function damagedStore(): Promise<{ root: string; cleanup: () => void; items: Item[] }> {
  const { root, cleanup } = tempStoreDir();
  const inits = Array.from({ length: 14 }, (_, i) => ({
    body: String.fromCharCode(97 + i).repeat(600 + i * 10),
  }));
  const items = await buildLog(root, inits);
  return { root, cleanup, items };
}

function corrupt(root: string, offset: number, value = 0xff): void {
  const name = join(commitLogDir(root), offset2FileName(offset - (offset % FILE)));
  const data = fs.readFileSync(name);
  data[offset % FILE] = (data[offset % FILE] ?? 0) ^ value;
  fs.writeFileSync(name, data);
}

test('mid-log damage is refused with the file and offset of the damaged record', async () => {
  const { root, cleanup, items } = await damagedStore();
  try {
    const records = items.filter((i) => i.kind === 'record');
    // A body byte of a record followed by another record in its file.
    const fileOf = (o: number) => o - (o % FILE);
    const victim = records.find(
      (r, i) =>
        i > 0 &&
        records[i + 1] !== undefined &&
        fileOf(records[i + 1]!.start) === fileOf(r.start) &&
        fileOf(r.start) > 0,
    )!;
    const lastFileStart = fileOf(victim.start);
    corrupt(root, victim.start + 100);
    for (const recover of ['recoverAbnormally', 'recoverNormally'] as const) {
      const cl = open(root);
      assert.throws(
        () => cl[recover](),
        (err: unknown) => {
          assert.ok(err instanceof StoreCorruptionError);
          const file = join(commitLogDir(root), offset2FileName(lastFileStart));
          assert.equal(err.fileName, file);
          assert.equal(err.offset, victim.start - lastFileStart);
          assert.equal(err.physicalOffset, victim.start);
          assert.ok(
            err.message.startsWith(
              `${file} at offset ${victim.start - lastFileStart}: mid-log damage: corrupt record (body CRC`,
            ),
            err.message,
          );
          assert.match(
            err.message,
            new RegExp(`followed by a valid record at ${file} offset ${victim.end - lastFileStart}`),
          );
          return true;
        },
        recover,
      );
      cl.mappedFileQueue.shutdown();
    }
    // Nothing was cut: every byte is still there.
    assert.equal(concat(readFiles(root)).length, Math.ceil(records.at(-1)!.end / FILE) * FILE);
  } finally {
    cleanup();
  }
});

test('damage in an earlier file with valid later files is refused too', async () => {
  const { root, cleanup, items } = await damagedStore();
  try {
    const victim = items.find((i) => i.kind === 'record' && i.start >= FILE && i.start < 2 * FILE)!;
    // TOTALSIZE off by one: the fields no longer add up.
    corrupt(root, victim.start + 3, 0x01);
    const cl = open(root);
    assert.throws(
      () => cl.recoverAbnormally(),
      (err: unknown) =>
        err instanceof StoreCorruptionError &&
        err.fileName.endsWith(offset2FileName(FILE)) &&
        err.offset === victim.start - FILE &&
        /mid-log damage: corrupt record \(fields add up to/.test(err.message),
    );
    cl.mappedFileQueue.shutdown();
  } finally {
    cleanup();
  }
});

test('a zeroed hole followed by valid records is mid-log damage, not the end of the log', async () => {
  const { root, cleanup, items } = await damagedStore();
  try {
    const records = items.filter((i) => i.kind === 'record');
    const hole = records.at(-3)!;
    const name = join(commitLogDir(root), offset2FileName(hole.start - (hole.start % FILE)));
    const data = fs.readFileSync(name);
    data.fill(0, hole.start % FILE, hole.end % FILE || FILE);
    fs.writeFileSync(name, data);
    const cl = open(root);
    assert.throws(
      () => cl.recoverAbnormally(),
      /mid-log damage: never-written bytes followed by a valid record/,
    );
    cl.mappedFileQueue.shutdown();
  } finally {
    cleanup();
  }
});

test('allowMidLogTruncation cuts the log at the damage, drops the later files and says so', async () => {
  const { root, cleanup, items } = await damagedStore();
  try {
    const victim = items.find((i) => i.kind === 'record' && i.start >= FILE && i.start < 2 * FILE)!;
    // A body byte (header fields other than sizes and offsets carry no check, as upstream).
    corrupt(root, victim.start + 100);
    const logs: LogRecord[] = [];
    const cl = open(
      root,
      { allowMidLogTruncation: true },
      { logger: createLogger('t', { level: 'debug', sink: (r) => logs.push(r) }) },
    );
    const result = cl.recoverAbnormally(victim.end + 10_000);
    assert.equal(result.processOffset, victim.start);
    assert.equal(result.truncateConsumeQueue, true);
    assert.deepEqual(result.stoppedAt?.offset, victim.start - FILE);
    assert.ok(result.droppedFiles.length >= 1);
    assert.deepEqual(fs.readdirSync(commitLogDir(root)).sort(), [offset2FileName(0), offset2FileName(FILE)]);
    assert.ok(logs.some((l) => l.level === 'error' && /mid-log damage/.test(l.msg)));
    assert.equal(cl.getMaxOffset(), victim.start);
    await cl.shutdown();
  } finally {
    cleanup();
  }
});

test('abnormal recovery starts from the last file stored before the checkpoint and dispatches from there', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const clock = new ManualClock(1_700_000_000_000);
    const inits = Array.from({ length: 20 }, (_, i) => ({ body: 'x'.repeat(700), queueId: i % 2 }));
    const items = await buildLog(root, inits, clock);
    const records = items.filter((i) => i.kind === 'record');
    // Store times are T0 + index; the checkpoint says everything up to record 12 was flushed.
    const fileOf = (o: number) => o - (o % FILE);
    const checkpoint = new StoreCheckpoint(join(root, 'checkpoint'));
    checkpoint.setPhysicMsgTimestamp(1_700_000_000_000n + 12n + 3000n);
    checkpoint.setLogicsMsgTimestamp(1_700_000_000_000n + 99n + 3000n);
    const cl = open(root, {}, { checkpoint });
    const seen: DispatchRequest[] = [];
    cl.addDispatcher({ dispatch: (r) => seen.push(r) });
    const result = cl.recoverAbnormally();
    // The start file is the one holding record 12: its first record was stored at or before T0+12.
    const startFile = fileOf(records[12]!.start);
    const expected = records.filter((r) => r.start >= startFile);
    assert.deepEqual(
      seen.map((r) => Number(r.commitLogOffset)),
      expected.map((r) => r.start),
    );
    assert.equal(result.processOffset, records.at(-1)!.end);
    assert.equal(cl.getTopicQueueOffset('TopicTest', 0), 10);
    assert.equal(cl.getTopicQueueOffset('TopicTest', 1), 10);
    await cl.shutdown();

    // Without a checkpoint everything is scanned.
    const again = open(root);
    let n = 0;
    again.addDispatcher({ dispatch: () => n++ });
    again.recoverAbnormally();
    assert.equal(n, 20);
    await again.shutdown();
  } finally {
    cleanup();
  }
});

test('normal recovery scans the last three files and continues the queue offsets', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const items = await buildLog(
      root,
      Array.from({ length: 30 }, () => ({ body: 'y'.repeat(800) })),
    );
    const cl = open(root);
    const result = cl.recoverNormally();
    const records = items.filter((i) => i.kind === 'record');
    assert.equal(result.processOffset, records.at(-1)!.end);
    assert.equal(result.stoppedAt, undefined);
    const files = fs.readdirSync(commitLogDir(root)).length;
    const scanned = records.filter((r) => r.start >= (files - 3) * FILE);
    assert.equal(
      result.scannedBytes,
      scanned.reduce((a, r) => a + r.end - r.start, 0),
    );
    assert.equal(cl.getTopicQueueOffset('TopicTest', 0), 30);
    const r = await cl.putMessage(inner());
    assert.equal(r.appendMessageResult!.logicsOffset, 30n);
    await cl.shutdown();
  } finally {
    cleanup();
  }
});

test('a record whose properties end in NUL counts only when a valid record follows it', async () => {
  const { root, cleanup, items } = await damagedStore();
  try {
    const records = items.filter((i) => i.kind === 'record');
    const lastByte = (r: Item) => r.end - 1;
    // In the middle: kept (it is followed by valid records), and no mid-log complaint.
    corrupt(root, lastByte(records.at(-3)!), 0xff ^ 0);
    const name = join(
      commitLogDir(root),
      offset2FileName(records.at(-3)!.start - (records.at(-3)!.start % FILE)),
    );
    const data = fs.readFileSync(name);
    data[lastByte(records.at(-3)!) % FILE] = 0;
    fs.writeFileSync(name, data);
    let cl = open(root);
    assert.equal(cl.recoverAbnormally().processOffset, records.at(-1)!.end);
    await cl.shutdown({ flush: false });
    // At the end: a torn write, dropped.
    const lastName = join(
      commitLogDir(root),
      offset2FileName(records.at(-1)!.start - (records.at(-1)!.start % FILE)),
    );
    const tail = fs.readFileSync(lastName);
    tail[lastByte(records.at(-1)!) % FILE] = 0;
    fs.writeFileSync(lastName, tail);
    cl = open(root);
    const result = cl.recoverAbnormally();
    assert.equal(result.processOffset, records.at(-1)!.start);
    assert.match(result.stoppedAt?.reason ?? '', /ends in a NUL byte/);
    await cl.shutdown({ flush: false });
  } finally {
    cleanup();
  }
});

test('a record with the 5.x V2 magic is read; bad files in the directory stop loading', async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const ext = new MessageExt();
    Object.assign(ext, {
      topic: 'V2Topic',
      magicCode: MESSAGE_MAGIC_CODE_V2,
      body: Buffer.from('v2'),
      bodyCRC: 0,
      storeHost: STORE_HOST,
      bornHost: STORE_HOST,
      queueOffset: 0n,
      commitLogOffset: 0n,
    });
    const { messageBodyCrc } = await import('../../../src/common/message/crc32.js');
    ext.bodyCRC = messageBodyCrc(ext.body);
    const record = encodeMessage(ext);
    const file = Buffer.alloc(FILE);
    record.copy(file);
    fs.mkdirSync(commitLogDir(root), { recursive: true });
    fs.writeFileSync(join(commitLogDir(root), offset2FileName(0)), file);
    const cl = open(root);
    const seen: DispatchRequest[] = [];
    cl.addDispatcher({ dispatch: (r) => seen.push(r) });
    assert.equal(cl.recoverAbnormally().processOffset, record.length);
    assert.equal(seen[0]?.topic, 'V2Topic');
    await cl.shutdown();

    fs.writeFileSync(join(commitLogDir(root), 'notes.txt'), 'x');
    assert.throws(() => open(root).recoverNormally(), /notes\.txt: unexpected file in a segment directory/);
  } finally {
    cleanup();
  }
});
