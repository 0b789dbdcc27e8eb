/**
 * The pieces of HA replication without sockets: the wire readers (reports and frames, whole or a byte
 * at a time, and what they refuse), SYNC_MASTER's wait (GroupTransferService on a ManualClock), and
 * the slave's append of raw commit-log bytes into a real store (records split across frames wait for
 * their rest; bytes that are not the master's records are refused before anything is written).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { GroupTransferService } from '../../../src/store/ha/group-transfer-service.js';
import {
  encodeFrameHeader,
  encodeReport,
  FrameReader,
  HA_MAX_FRAME_BODY,
  ReportReader,
} from '../../../src/store/ha/ha-frame.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import { msg, openStore, put, removeTempDirs, tempDir } from './default-message-store-support.js';

after(() => removeTempDirs());

describe('ReportReader', () => {
  test('reads 8-byte offsets whole or a byte at a time, acting on the newest', () => {
    const r = new ReportReader();
    assert.equal(r.push(encodeReport(42)), 42);
    assert.equal(r.push(Buffer.concat([encodeReport(1), encodeReport(7)])), 7);
    const bytes = encodeReport(123_456_789_012);
    for (let i = 0; i < 7; i++) assert.equal(r.push(bytes.subarray(i, i + 1)), undefined);
    assert.equal(r.push(bytes.subarray(7)), 123_456_789_012);
  });

  test('refuses negative offsets and offsets no commit log reaches', () => {
    assert.match(String(new ReportReader().push(Buffer.alloc(8, 0xff))), /negative offset/);
    const huge = Buffer.alloc(8);
    huge.writeBigInt64BE(2n ** 62n);
    assert.match(String(new ReportReader().push(huge)), /beyond any commit log/);
  });
});

describe('FrameReader', () => {
  test('hands out frames whole, split anywhere, and heartbeats', () => {
    const data = Buffer.from('0123456789abcdef');
    const wire = Buffer.concat([
      encodeFrameHeader(100, data.length),
      data,
      encodeFrameHeader(116, 0),
      encodeFrameHeader(116, 3),
      Buffer.from('xyz'),
    ]);
    const whole = new FrameReader().push(wire);
    assert.ok(Array.isArray(whole));
    assert.deepEqual(
      whole.map((f) => [f.offset, f.data.toString()]),
      [
        [100, '0123456789abcdef'],
        [116, ''],
        [116, 'xyz'],
      ],
    );
    const reader = new FrameReader();
    const dribbled: Array<[number, string]> = [];
    for (let i = 0; i < wire.length; i++) {
      const frames = reader.push(wire.subarray(i, i + 1));
      assert.ok(Array.isArray(frames));
      for (const f of frames) dribbled.push([f.offset, f.data.toString()]);
    }
    assert.deepEqual(dribbled, [
      [100, '0123456789abcdef'],
      [116, ''],
      [116, 'xyz'],
    ]);
    assert.equal(reader.pending, 0);
  });

  test('refuses negative sizes, sizes above 4 MiB and negative offsets', () => {
    const negative = Buffer.concat([encodeFrameHeader(0, 0)]);
    negative.writeInt32BE(-5, 8);
    assert.match(String(new FrameReader().push(negative)), /negative size -5/);
    assert.match(
      String(new FrameReader().push(encodeFrameHeader(0, HA_MAX_FRAME_BODY + 1))),
      /above the 4194304-byte limit/,
    );
    assert.deepEqual(new FrameReader().push(encodeFrameHeader(0, HA_MAX_FRAME_BODY)), []);
    assert.match(String(new FrameReader().push(Buffer.alloc(12, 0x80))), /negative offset/);
  });
});

describe('GroupTransferService', () => {
  test('answers PUT_OK once acknowledged, FLUSH_SLAVE_TIMEOUT at the deadline', async () => {
    const clock = new ManualClock();
    const g = new GroupTransferService(clock);
    const answers: string[] = [];
    const first = g.waitFor(100, 3000).then((s) => answers.push(`100:${s}`));
    const second = g.waitFor(200, 3000).then((s) => answers.push(`200:${s}`));
    clock.advance(1000);
    const third = g.waitFor(300, 3000).then((s) => answers.push(`300:${s}`));
    g.notifyTransferSome(150);
    await first;
    assert.deepEqual(answers, [`100:${PutMessageStatus.PUT_OK}`]);
    clock.advance(2000);
    await second;
    assert.deepEqual(answers.at(-1), `200:${PutMessageStatus.FLUSH_SLAVE_TIMEOUT}`);
    assert.equal(g.waiting, 1);
    g.notifyTransferSome(300);
    await third;
    assert.deepEqual(answers.at(-1), `300:${PutMessageStatus.PUT_OK}`);
    assert.equal(await g.waitFor(250, 3000), PutMessageStatus.PUT_OK, 'already acknowledged');
    assert.equal(g.waiting, 0);
  });

  test('shutdown answers every waiter', async () => {
    const g = new GroupTransferService(new ManualClock());
    const waiting = g.waitFor(10, 3000);
    g.shutdown();
    assert.equal(await waiting, PutMessageStatus.FLUSH_SLAVE_TIMEOUT);
  });
});

const FILE = 8 * 1024;

async function masterWith(n: number): Promise<DefaultMessageStore> {
  const store = await openStore(tempDir('rmq-ha-m-'), { mappedFileSizeCommitLog: FILE });
  for (let i = 0; i < n; i++)
    await put(store, msg(i, { queueId: i % 2, body: 'x'.repeat(100 + (i % 7) * 90), keys: `key${i}` }));
  return store;
}

function slaveStore(): Promise<DefaultMessageStore> {
  return openStore(tempDir('rmq-ha-s-'), { mappedFileSizeCommitLog: FILE }, { brokerRole: 'SLAVE' });
}

/** Copies the master's log to the slave in pieces of `piece` bytes, never across a file. */
function replicate(
  master: DefaultMessageStore,
  slave: DefaultMessageStore,
  from: number,
  piece: number,
): void {
  const end = Number(master.getMaxPhyOffset());
  let at = from;
  while (at < end) {
    const data = master.getCommitLogData(at, piece);
    assert.ok(data !== undefined);
    assert.equal(slave.appendToCommitLog(at, data), undefined, `append at ${at}`);
    at += data.length;
  }
}

function entries(store: DefaultMessageStore, queueId: number) {
  const view = store.queryConsumeQueue('TopicTest', queueId, 0n, 1000);
  return view?.entries;
}

describe("appendToCommitLog (the slave's append)", () => {
  test('pieces that split records give the same bytes, consume queues and index', async () => {
    const master = await masterWith(120);
    const slave = await slaveStore();
    try {
      assert.ok(Number(master.getMaxPhyOffset()) > 2 * FILE, 'several files');
      replicate(master, slave, 0, 333);
      assert.equal(slave.getMaxPhyOffset(), master.getMaxPhyOffset());
      const a = master.getCommitLogData(0, FILE);
      const b = slave.getCommitLogData(0, FILE);
      assert.ok(a !== undefined && b !== undefined && a.equals(b));
      for (const q of [0, 1]) assert.deepEqual(entries(slave, q), entries(master, q));
      assert.equal(slave.getMaxOffsetInQueue('TopicTest', 0), 60n);
      const found = await slave.queryMessage('TopicTest', 'key7', 4, 0n, BigInt(Date.now() + 1e9));
      assert.equal(found.messages.length, 1);
    } finally {
      await master.shutdown();
      await slave.shutdown();
    }
  });

  test('a record waits for its rest: its entry appears only when it is complete', async () => {
    const master = await masterWith(2);
    const slave = await slaveStore();
    try {
      const first = master.getCommitLogData(0, 10_000);
      assert.ok(first !== undefined);
      const size = first.readInt32BE(0);
      assert.equal(slave.appendToCommitLog(0, first.subarray(0, size + 10)), undefined);
      assert.equal(slave.getMaxOffsetInQueue('TopicTest', 0), 1n);
      assert.equal(slave.getMaxOffsetInQueue('TopicTest', 1), 0n, 'the split record is not dispatched');
      assert.equal(slave.appendToCommitLog(size + 10, first.subarray(size + 10)), undefined);
      assert.equal(slave.getMaxOffsetInQueue('TopicTest', 1), 1n);
    } finally {
      await master.shutdown();
      await slave.shutdown();
    }
  });

  test('refuses, writing nothing: wrong offsets, a file crossed, bytes that are not records', async () => {
    const master = await masterWith(40);
    const slave = await slaveStore();
    try {
      const data = master.getCommitLogData(0, 4000);
      assert.ok(data !== undefined);
      assert.match(String(slave.appendToCommitLog(100, data)), /only start at a file boundary/);
      assert.match(String(slave.appendToCommitLog(FILE - 10, data)), /file boundary/);
      assert.equal(slave.appendToCommitLog(0, data.subarray(0, 1000)), undefined);
      assert.match(String(slave.appendToCommitLog(2000, data)), /commit log ends at 1000/);
      assert.match(String(slave.appendToCommitLog(1000, Buffer.alloc(FILE))), /cross a commit-log file/);
      // Garbage after the record split at 1000: refused, nothing written, the split record still waits.
      const garbage = Buffer.from(data.subarray(1000, 3000));
      garbage.fill(0x5a, 500);
      assert.match(String(slave.appendToCommitLog(1000, garbage)), /does not check out/);
      assert.equal(slave.getMaxPhyOffset(), 1000n);
      // The split record's own rest damaged: its first part, already written, is cut off again.
      const damaged = Buffer.from(data.subarray(1000, 3000));
      damaged.fill(0x5a, 0, 20);
      assert.match(String(slave.appendToCommitLog(1000, damaged)), /does not check out/);
      assert.ok(slave.getMaxPhyOffset() < 1000n, 'cut back to the split record');
      const end = Number(slave.getMaxPhyOffset());
      // From the cut, the master's real bytes still go on.
      const rest = master.getCommitLogData(end, FILE - end);
      assert.ok(rest !== undefined);
      assert.equal(slave.appendToCommitLog(end, rest), undefined);
      replicate(master, slave, Number(slave.getMaxPhyOffset()), 1000);
      assert.equal(slave.getMaxPhyOffset(), master.getMaxPhyOffset());
      for (const q of [0, 1]) assert.deepEqual(entries(slave, q), entries(master, q));
    } finally {
      await master.shutdown();
      await slave.shutdown();
    }
  });

  test("a slave whose commit-log files differ in size from the master's refuses the bytes", async () => {
    const master = await masterWith(60);
    const bigger = await openStore(
      tempDir('rmq-ha-s-'),
      { mappedFileSizeCommitLog: 2 * FILE },
      { brokerRole: 'SLAVE' },
    );
    const smaller = await openStore(
      tempDir('rmq-ha-s-'),
      { mappedFileSizeCommitLog: FILE / 2 },
      { brokerRole: 'SLAVE' },
    );
    try {
      // The master's first file ends with a BLANK filling it; in a bigger file that is no end.
      const first = master.getCommitLogData(0, FILE);
      assert.ok(first !== undefined && first.length === FILE);
      assert.match(
        String(bigger.appendToCommitLog(0, first)),
        /mappedFileSizeCommitLog 16384 the master's too/,
      );
      assert.equal(bigger.getMaxPhyOffset(), 0n, 'nothing written');
      assert.match(String(smaller.appendToCommitLog(0, first)), /must be the same on master and slave/);
      assert.equal(smaller.getMaxPhyOffset(), 0n, 'nothing written');
    } finally {
      await master.shutdown();
      await bigger.shutdown();
      await smaller.shutdown();
    }
  });

  test('an empty slave starts at a later file boundary', async () => {
    const master = await masterWith(120);
    const slave = await slaveStore();
    try {
      replicate(master, slave, 2 * FILE, 4096);
      assert.equal(Number(slave.getMinPhyOffset()), 2 * FILE);
      assert.equal(slave.getMaxPhyOffset(), master.getMaxPhyOffset());
      const last = master.getMaxOffsetInQueue('TopicTest', 0) - 1n;
      assert.deepEqual(
        slave.queryConsumeQueue('TopicTest', 0, last, 1)?.entries,
        master.queryConsumeQueue('TopicTest', 0, last, 1)?.entries,
      );
    } finally {
      await master.shutdown();
      await slave.shutdown();
    }
  });
});

test('a SYNC_FLUSH slave flushes what it appends', async () => {
  const master = await masterWith(30);
  const slave = await openStore(
    tempDir('rmq-ha-s-'),
    { mappedFileSizeCommitLog: FILE, flushDiskType: 'SYNC_FLUSH' },
    { brokerRole: 'SLAVE' },
  );
  try {
    replicate(master, slave, 0, 2000);
    const end = Number(slave.getMaxPhyOffset());
    await waitUntil(() => slave.commitLog.getFlushedWhere() === end);
  } finally {
    await master.shutdown();
    await slave.shutdown();
  }
});

async function waitUntil(probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!probe()) {
    assert.ok(Date.now() < deadline, 'flushed within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
