/**
 * Bad input on both ends of HA replication, over real TCP on 127.0.0.1 with real stores on a
 * ManualClock. On the master's HA port: random bytes, one-byte dribbles, offsets beyond the end,
 * a start offset whose file is deleted, connect-and-silence. On the slave, from a fake master: wrong
 * offsets, sizes above 4 MiB or negative, bytes that are not records, a body cut off by the master
 * closing. Each closes that connection with one log line and leaves both stores as they were.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import type { Logger, LogRecord } from '../../../src/common/logger.js';
import { encodeFrameHeader, encodeReport, FrameReader } from '../../../src/store/ha/ha-frame.js';
import { capturingLogger } from '../../unit/broker/helpers.js';
import { removeTempDirs } from '../../unit/store/default-message-store-support.js';
import { HA_STORE_FILE as FILE, haMasterStore, haSlaveStore, waitFor } from './ha-support.js';

const LIMIT = { timeout: 30_000 };

after(() => removeTempDirs());

async function open(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  return socket;
}

/** Resolves when the peer has closed `socket` (read side ended or reset). */
function closedByPeer(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on('error', () => resolve());
    socket.on('end', () => resolve());
    socket.on('close', () => resolve());
  });
}

function closings(records: LogRecord[]): LogRecord[] {
  return records.filter(
    (r) => r.msg === 'closing slave connection' || r.msg === 'closing connection to master',
  );
}

describe("the master's HA port", () => {
  test(
    'refuses random bytes, dribbled offsets beyond the end and silence, one log line each',
    LIMIT,
    async () => {
      const clock = new ManualClock();
      const { records, logger } = capturingLogger();
      const m = await haMasterStore(60, clock, logger);
      try {
        const port = await m.haService.start({ port: 0, host: '127.0.0.1' });
        const maxBefore = m.getMaxPhyOffset();
        const minBefore = m.getMinPhyOffset();

        const random = await open(port);
        const junk = Buffer.from('\x7fgarbage that is no offset report at all, not even close', 'latin1');
        random.write(junk);
        await closedByPeer(random);
        assert.equal(closings(records).length, 1);
        assert.match(
          String(closings(records)[0]?.fields.reason),
          /not an offset report|beyond the master's end/,
        );

        const dribble = await open(port);
        const beyond = encodeReport(Number(maxBefore) + 1);
        for (const byte of beyond) dribble.write(Buffer.from([byte]));
        await closedByPeer(dribble);
        assert.equal(closings(records).length, 2);

        // A valid report, dribbled: the master streams from where it says.
        const good = await open(port);
        const frames = new FrameReader();
        let end = -1;
        good.on('data', (chunk: Buffer) => {
          const got = frames.push(chunk);
          assert.ok(Array.isArray(got));
          for (const f of got) end = f.offset + f.data.length;
        });
        for (const byte of encodeReport(FILE)) good.write(Buffer.from([byte]));
        await waitFor(() => end === Number(maxBefore), 'the master streamed up to its end');
        good.destroy();

        const silent = await open(port);
        const gone = closedByPeer(silent);
        await waitFor(() => m.haService.connectionCount === 1, 'only the silent connection is left');
        clock.advance(m.config.haHousekeepingInterval + 2000);
        await gone;
        const last = closings(records).at(-1);
        assert.match(String(last?.fields.reason), /housekeeping/);
        assert.equal(closings(records).length, 3);
        assert.equal(m.getMaxPhyOffset(), maxBefore);
        assert.equal(m.getMinPhyOffset(), minBefore);
      } finally {
        await m.shutdown();
      }
    },
  );

  test(
    "a start offset the master has deleted is refused, telling the master's first file",
    LIMIT,
    async () => {
      const clock = new ManualClock();
      const { records, logger } = capturingLogger();
      const m = await haMasterStore(120, clock, logger);
      try {
        clock.advance(3600_000);
        await m.commitLog.deleteExpiredFile(0, 0, 0, true);
        const min = Number(m.getMinPhyOffset());
        assert.ok(min >= FILE, 'old files deleted');
        const port = await m.haService.start({ port: 0, host: '127.0.0.1' });
        const slave = await open(port);
        const frames = new FrameReader();
        const seen: number[] = [];
        slave.on('data', (chunk: Buffer) => {
          const got = frames.push(chunk);
          assert.ok(Array.isArray(got));
          for (const f of got) seen.push(f.offset, f.data.length);
        });
        slave.write(encodeReport(100));
        await closedByPeer(slave);
        assert.deepEqual(seen, [min, 0], 'an empty frame at the first file, then the end');
        assert.equal(closings(records).length, 1);
        assert.match(String(closings(records)[0]?.fields.reason), /before the master's first file/);
      } finally {
        await m.shutdown();
      }
    },
  );
});

/** A fake master: hands each connection (and the slave's first report) to the test. */
async function fakeMaster(): Promise<{
  server: Server;
  port: number;
  next: () => Promise<[Socket, number]>;
}> {
  const queue: Array<[Socket, number]> = [];
  const waiters: Array<(c: [Socket, number]) => void> = [];
  const server = createServer((socket) => {
    socket.once('data', (chunk: Buffer) => {
      const item: [Socket, number] = [socket, Number(chunk.readBigInt64BE(0))];
      const w = waiters.shift();
      if (w !== undefined) w(item);
      else queue.push(item);
    });
    socket.on('error', () => undefined);
  });
  server.listen({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  const address = server.address();
  assert.ok(typeof address === 'object' && address !== null);
  return {
    server,
    port: address.port,
    next: () => {
      const item = queue.shift();
      return item !== undefined ? Promise.resolve(item) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/** A slave store following a fake master; close() stops both. */
async function slaveOfFakeMaster(clock: ManualClock, logger: Logger) {
  const slave = await haSlaveStore(clock, logger);
  const fake = await fakeMaster();
  const close = async () => {
    slave.haService.updateMasterAddress(undefined);
    await new Promise<void>((resolve) => fake.server.close(() => resolve()));
    await slave.shutdown();
  };
  try {
    await slave.haService.start({ port: 0, host: '127.0.0.1' });
    slave.haService.updateMasterAddress(`127.0.0.1:${fake.port}`);
  } catch (error) {
    await close();
    throw error;
  }
  return { slave, fake, close };
}

describe('the slave', () => {
  test('closes on bad frames with one log line and keeps its store intact', LIMIT, async () => {
    const clock = new ManualClock();
    const source = await haMasterStore(60, clock);
    const { records, logger } = capturingLogger();
    const { slave, fake, close } = await slaveOfFakeMaster(clock, logger);
    try {
      // A good start: the first file of a real master's log, in frames.
      let [socket, report] = await fake.next();
      assert.equal(report, 0, 'an empty slave reports 0 at once');
      // It ends on a record boundary, so that what follows is checked as a record of its own.
      const log = source.getCommitLogData(0, FILE);
      assert.ok(log !== undefined);
      let cut = 0;
      while (cut + log.readInt32BE(cut) <= 3000) cut += log.readInt32BE(cut);
      const first = log.subarray(0, cut);
      socket.write(Buffer.concat([encodeFrameHeader(0, first.length), first]));
      await waitFor(() => slave.getMaxPhyOffset() === BigInt(cut), 'slave appended the good frame');
      const good = slave.getMaxPhyOffset();
      const rest = log.subarray(cut, cut + 2000);

      const negative = encodeFrameHeader(cut, 0);
      negative.writeInt32BE(-1, 8);
      const cases: Array<[string, Buffer, RegExp]> = [
        ['wrong offset', Buffer.concat([encodeFrameHeader(cut + 100, rest.length), rest]), /pushed offset/],
        ['size above 4 MiB', encodeFrameHeader(cut, 5 * 1024 * 1024), /above the 4194304-byte limit/],
        ['negative size', negative, /negative size/],
        [
          'bytes that are not records',
          Buffer.concat([encodeFrameHeader(cut, 64), Buffer.alloc(64, 0x41)]),
          /does not check out|MAGICCODE|never-written|zero bytes/,
        ],
      ];
      for (const [index, [what, bytes, reason]] of cases.entries()) {
        const before = closings(records).length;
        if (index > 0) {
          // The slave connects again after its reconnect interval and reports its end at once.
          clock.advance(5000);
          [socket, report] = await fake.next();
          assert.equal(report, Number(good), `${what}: the slave reports its end`);
        }
        const gone = closedByPeer(socket);
        socket.write(bytes);
        await gone;
        const logged = closings(records).slice(before);
        assert.equal(logged.length, 1, `${what}: one log line`);
        assert.match(String(logged[0]?.fields.reason), reason, what);
        assert.equal(slave.getMaxPhyOffset(), good, `${what}: nothing written`);
      }

      // A body cut off by the master closing: nothing of it is written.
      clock.advance(5000);
      [socket] = await fake.next();
      socket.end(Buffer.concat([encodeFrameHeader(cut, rest.length), rest.subarray(0, 100)]));
      await waitFor(() => !slave.haService.haClient.connected, 'the slave saw the close');
      assert.equal(slave.getMaxPhyOffset(), good);

      // And the real rest still goes on where the slave ended.
      clock.advance(5000);
      [socket] = await fake.next();
      socket.write(Buffer.concat([encodeFrameHeader(cut, rest.length), rest]));
      const end = cut + rest.length;
      await waitFor(() => slave.getMaxPhyOffset() === BigInt(end), 'slave appended the rest');
      assert.ok(
        slave.getCommitLogData(0, end)?.equals(log.subarray(0, end)),
        'the slave holds exactly the master bytes',
      );
      socket.destroy();
    } finally {
      await close();
      await source.shutdown();
    }
  });

  test('drops a silent master after haHousekeepingInterval', LIMIT, async () => {
    const clock = new ManualClock();
    const { records, logger } = capturingLogger();
    const { slave, fake, close } = await slaveOfFakeMaster(clock, logger);
    try {
      const [socket] = await fake.next();
      const gone = closedByPeer(socket);
      clock.advance(slave.config.haHousekeepingInterval + 2000);
      await gone;
      assert.equal(closings(records).length, 1);
      assert.match(String(closings(records)[0]?.fields.reason), /nothing received from master/);
    } finally {
      await close();
    }
  });
});
