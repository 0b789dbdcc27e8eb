/**
 * Body CRCs checked ahead of a recovery scan on a worker thread: the worker's CRC check agrees with the
 * scan's, the worker walks the same records (across BLANKs and files) and stops at the first it cannot
 * confirm, and a recovery with the worker ends exactly where one without it does.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../../../src/common/logger.js';
import { messageBodyCrc } from '../../../src/common/message/crc32.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { RecordScanner } from '../../../src/store/commit-log-recovery.js';
import { type CrcAhead, startCrcAhead } from '../../../src/store/crc-ahead.js';
import { DelayLevelTable } from '../../../src/store/delay-level.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { offset2FileName } from '../../../src/store/mapped-file.js';
import { MappedFileQueue } from '../../../src/store/mapped-file-queue.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import {
  bodyCrcMatches,
  checkMessageAndReturnSize,
  RecordKind,
} from '../../../src/store/stored-record-reader.js';
import { type InnerInit, inner, smallConfig, tempStoreDir } from './commit-log-support.js';

const FILE = 16 * 1024;
const quiet = createLogger('test', { level: 'silent' });

interface Record {
  start: number;
  size: number;
  /** IPv6 born host: the body starts 12 bytes later. */
  v6: boolean;
}

/** A log over several 16 KiB files (so with BLANKs); returns its records. */
async function buildLog(root: string, count = 60): Promise<Record[]> {
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), { logger: quiet });
  cl.recoverNormally();
  const records: Record[] = [];
  for (let i = 0; i < count; i++) {
    const init: InnerInit = { body: `${i}:`.padEnd(300 + ((i * 37) % 900), 'x'), queueId: i % 3 };
    if (i % 7 === 3) init.bornHost = { address: '::1', port: 7 };
    if (i % 11 === 5) init.body = Buffer.alloc(0);
    const r = await cl.putMessage(inner(init));
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    records.push({
      start: Number(r.appendMessageResult!.wroteOffset),
      size: r.appendMessageResult!.wroteBytes,
      v6: init.bornHost !== undefined,
    });
  }
  await cl.shutdown();
  return records;
}

function fileOf(root: string, offset: number): string {
  return join(root, 'commitlog', offset2FileName(offset - (offset % FILE)));
}

/** XORs one byte of the log. */
function flip(root: string, offset: number): void {
  const path = fileOf(root, offset);
  const data = fs.readFileSync(path);
  data[offset % FILE] = (data[offset % FILE] ?? 0) ^ 0x5a;
  fs.writeFileSync(path, data);
}

function bodyOffset(record: Record): number {
  // TOTALSIZE..BORNTIMESTAMP (48), born host, STORETIMESTAMP, store host, RECONSUMETIMES..BODYLEN (16).
  return record.start + 48 + (record.v6 ? 20 : 8) + 8 + 8 + 16;
}

/** Waits until the worker's frontier stays put (it stops at the end of what it can confirm). */
async function settledFrontier(ahead: CrcAhead, expected: number): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (ahead.frontier() < expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return ahead.frontier();
}

function openQueue(root: string): MappedFileQueue {
  const queue = new MappedFileQueue(join(root, 'commitlog'), FILE);
  queue.load();
  return queue;
}

test("the worker's CRC check agrees with the scan's, on intact and damaged records", async () => {
  const { root, cleanup } = tempStoreDir();
  try {
    const records = await buildLog(root, 30);
    const options = { checkCRC: true, buildRequest: false, delayLevels: new DelayLevelTable() };
    for (const [i, r] of records.entries()) {
      const file = fs.readFileSync(fileOf(root, r.start));
      const pos = r.start % FILE;
      const bytes = Buffer.from(file.subarray(pos, pos + r.size));
      const verdict = (b: Buffer): [boolean, boolean] => [
        bodyCrcMatches(b, 0, r.size),
        checkMessageAndReturnSize(b, 0, b.length, r.start, FILE - pos, options).kind === RecordKind.MESSAGE,
      ];
      assert.deepEqual(verdict(bytes), [true, true], `record ${i}`);
      const body = bodyOffset({ ...r, start: 0 });
      const bodyLength = bytes.readInt32BE(body - 4);
      if (bodyLength > 0) {
        const damaged = Buffer.from(bytes);
        damaged[body + (i % bodyLength)]! ^= 1;
        assert.deepEqual(verdict(damaged), [false, false], `record ${i} with a body byte changed`);
      }
      const badCrc = Buffer.from(bytes);
      badCrc.writeInt32BE(bodyLength > 0 ? (messageBodyCrc(Buffer.from('other')) ^ 1) & 0x7fffffff : 0, 8);
      assert.equal(bodyCrcMatches(badCrc, 0, r.size), bodyLength === 0, `record ${i} with another BODYCRC`);
      assert.equal(bodyCrcMatches(bytes, 0, r.size + 1), false, 'a size past the buffer');
      assert.equal(bodyCrcMatches(bytes, 0, 40), false, 'a size below any record');
    }
  } finally {
    cleanup();
  }
});

test('the worker confirms every record to the end of the log, across BLANKs and files', async () => {
  const { root, cleanup } = tempStoreDir();
  const records = await buildLog(root);
  const queue = openQueue(root);
  const ahead = startCrcAhead(queue.getMappedFiles(), 0, 0, quiet);
  try {
    assert.ok(ahead !== undefined);
    assert.ok(queue.getMappedFiles().length >= 3, 'the log spans files');
    const end = records.at(-1)!.start + records.at(-1)!.size;
    assert.equal(await settledFrontier(ahead, end), end);
  } finally {
    ahead?.stop();
    queue.shutdown();
    cleanup();
  }
});

test('the worker stops before the first record whose CRC does not match, and starts where the scan is', async () => {
  const { root, cleanup } = tempStoreDir();
  const records = await buildLog(root);
  const victim = records[25]!;
  flip(root, bodyOffset(victim) + 3);
  const queue = openQueue(root);
  const end = records.at(-1)!.start + records.at(-1)!.size;
  const fromStart = startCrcAhead(queue.getMappedFiles(), 0, 0, quiet);
  const pastDamage = startCrcAhead(queue.getMappedFiles(), records[26]!.start, 0, quiet);
  try {
    assert.ok(fromStart !== undefined && pastDamage !== undefined);
    assert.equal(await settledFrontier(pastDamage, end), end);
    // The one started at 0 stopped at the victim for good: give it the time the other needed and more.
    await settledFrontier(fromStart, victim.start);
    const deadline = Date.now() + 200;
    while (Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(fromStart.frontier(), victim.start);
  } finally {
    fromStart?.stop();
    pastDamage?.stop();
    queue.shutdown();
    cleanup();
  }
});

test('no worker for scans smaller than the threshold', async () => {
  const { root, cleanup } = tempStoreDir();
  await buildLog(root, 5);
  const queue = openQueue(root);
  try {
    assert.equal(startCrcAhead(queue.getMappedFiles(), 0, 64 * 1024 * 1024, quiet), undefined);
    assert.equal(startCrcAhead(queue.getMappedFiles(), 0, Number.POSITIVE_INFINITY, quiet), undefined);
  } finally {
    queue.shutdown();
    cleanup();
  }
});

/** Abnormal recovery of `root` with or without the worker: where it ends, what it dispatched, or its error. */
function recover(root: string, parallelCrcMinBytes: number): { end: number; dispatched: string[] } | string {
  const cl = new CommitLog(smallConfig(root, { mappedFileSizeCommitLog: FILE }), {
    logger: quiet,
    parallelCrcMinBytes,
  });
  const dispatched: string[] = [];
  cl.addDispatcher({
    dispatch: (r: DispatchRequest) => dispatched.push(`${r.commitLogOffset}/${r.msgSize}/${r.tagsCode}`),
  });
  try {
    return { end: cl.recoverAbnormally().processOffset, dispatched };
  } catch (err) {
    return (err instanceof Error ? err.message : String(err)).replaceAll(root, '<root>');
  } finally {
    cl.mappedFileQueue.shutdown();
  }
}

test('recovery with the CRC worker ends where recovery without it does', async () => {
  const cases: Array<{ name: string; damage: (root: string, records: Record[]) => void }> = [
    { name: 'intact', damage: () => undefined },
    { name: 'torn tail (last body damaged)', damage: (root, rs) => flip(root, bodyOffset(rs.at(-1)!) + 1) },
    { name: 'mid-log body damage', damage: (root, rs) => flip(root, bodyOffset(rs[30]!) + 7) },
    { name: 'mid-log BODYCRC damage', damage: (root, rs) => flip(root, rs[12]!.start + 9) },
  ];
  for (const c of cases) {
    const single = tempStoreDir();
    const parallel = tempStoreDir();
    try {
      const records = await buildLog(single.root);
      c.damage(single.root, records);
      fs.cpSync(single.root, parallel.root, { recursive: true });
      const without = recover(single.root, Number.POSITIVE_INFINITY);
      // Several runs: the worker's head start differs from run to run.
      for (let run = 0; run < 3; run++) {
        assert.deepEqual(recover(parallel.root, 0), without, `${c.name}, run ${run}`);
      }
      if (c.name === 'intact') {
        assert.equal(
          typeof without === 'string' ? -1 : without.end,
          records.at(-1)!.start + records.at(-1)!.size,
        );
      }
      if (c.name.startsWith('mid-log')) assert.match(String(without), /mid-log damage/);
      if (c.name.startsWith('torn'))
        assert.equal(typeof without === 'string' ? -1 : without.end, records.at(-1)!.start);
    } finally {
      single.cleanup();
      parallel.cleanup();
    }
  }
});

test('the scan skips the CRC of records the worker confirmed, and only those', async () => {
  const { root, cleanup } = tempStoreDir();
  const records = await buildLog(root);
  const queue = openQueue(root);
  const ahead = startCrcAhead(queue.getMappedFiles(), 0, 0, quiet);
  try {
    assert.ok(ahead !== undefined);
    const end = records.at(-1)!.start + records.at(-1)!.size;
    assert.equal(await settledFrontier(ahead, end), end);
    // Damage two bodies after the worker confirmed them, one in the first file, one in the last:
    // the scan trusts the worker for both (it checked them), so only a scan without it notices.
    const first = records[2]!;
    const last = records.at(-1)!;
    flip(root, bodyOffset(first) + 2);
    flip(root, bodyOffset(last) + 2);
    const scan = (withWorker: boolean): string[] => {
      const scanner = new RecordScanner(4096);
      scanner.ahead = withWorker ? ahead : undefined;
      const options = { checkCRC: true, delayLevels: new DelayLevelTable() };
      const stops: string[] = [];
      for (const file of queue.getMappedFiles()) {
        const stop = scanner.scanFile(file, 0, options, false);
        stops.push(`${stop.kind}@${file.fileFromOffset + stop.position}`);
        if (stop.kind !== 'blank' && stop.kind !== 'eof') break;
      }
      return stops;
    };
    const trusted = scan(true);
    assert.equal(trusted.at(-1), `end@${end}`, 'every record accepted');
    assert.deepEqual(scan(false), [`corrupt@${first.start}`], 'the damage is real');
  } finally {
    ahead?.stop();
    queue.shutdown();
    cleanup();
  }
});
