import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import {
  createOffsetMsgId,
  createOffsetMsgIds,
  decodeOffsetMsgId,
  fixedTimeZone,
  startOfMonth,
  type TimeZoneOffset,
  UniqKeyGenerator,
  uniqKeyIp,
  uniqKeyPid,
  uniqKeyTimestamp,
} from '../../../src/common/message/index.js';

describe('offsetMsgId', () => {
  test('IPv4: ip | port | offset as 32 upper-case hex characters', () => {
    const id = createOffsetMsgId({ address: '192.168.1.2', port: 10911 }, 4096n);
    assert.equal(id, 'C0A80102' + '00002A9F' + '0000000000001000');
    assert.deepEqual(decodeOffsetMsgId(id), {
      address: { address: '192.168.1.2', port: 10911 },
      offset: 4096n,
    });
    assert.deepEqual(decodeOffsetMsgId(id.toLowerCase()).offset, 4096n);
  });

  test('IPv6: 56 characters', () => {
    const id = createOffsetMsgId({ address: '2001:db8::2', port: 10911 }, 2n ** 40n);
    assert.equal(id, '20010DB8000000000000000000000002' + '00002A9F' + '0000010000000000');
    assert.deepEqual(decodeOffsetMsgId(id), {
      address: { address: '2001:db8::2', port: 10911 },
      offset: 2n ** 40n,
    });
  });

  test('a batch: the ids of every offset joined by commas, as joining single ids gives', () => {
    const v4 = { address: '10.1.2.3', port: 10911 };
    const v6 = { address: 'fe80::1:2', port: 65535 };
    const offsets = [0, 1, 255, 4096, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 17, Number.MAX_SAFE_INTEGER];
    for (const host of [v4, v6, v4]) {
      assert.equal(
        createOffsetMsgIds(host, offsets),
        offsets.map((o) => createOffsetMsgId(host, BigInt(o))).join(','),
      );
    }
    // Offsets a long holds but a double does not name exactly take the exact path.
    assert.equal(
      createOffsetMsgIds(v4, [-1, 7]),
      `${createOffsetMsgId(v4, -1n)},${createOffsetMsgId(v4, 7n)}`,
    );
    assert.equal(createOffsetMsgId(v4, -1n), '0A010203' + '00002A9F' + 'FFFFFFFFFFFFFFFF');
    assert.equal(
      createOffsetMsgIds(v4, [5, 6, 7], 2),
      [5, 6].map((o) => createOffsetMsgId(v4, BigInt(o))).join(','),
    );
    assert.equal(createOffsetMsgIds(v4, []), '');
    // A longer batch than any before reuses nothing stale.
    const many = Array.from({ length: 300 }, (_, i) => i * 1000);
    assert.equal(createOffsetMsgIds(v6, many), many.map((o) => createOffsetMsgId(v6, BigInt(o))).join(','));
    assert.equal(createOffsetMsgIds(v4, [9]), createOffsetMsgId(v4, 9n));
    assert.throws(() => createOffsetMsgIds({ address: 'not-an-ip', port: 1 }, [1]), ValidationError);
  });

  test('bad ids are ValidationErrors', () => {
    for (const bad of [
      '',
      'C0A8',
      `${'0'.repeat(31)}G`,
      '0'.repeat(40),
      `${'0'.repeat(8)}FFFFFFFF${'0'.repeat(16)}`,
    ]) {
      assert.throws(() => decodeOffsetMsgId(bad), ValidationError, bad);
    }
    assert.throws(
      () => createOffsetMsgId({ address: '1.2.3.4', port: 1 }, -(2n ** 63n) - 1n),
      ValidationError,
    );
  });
});

/** 2023-11-14T22:13:20Z; in UTC+8 that is 2023-11-15 06:13:20, so the month starts 2023-10-31T16:00Z. */
const NOW = 1700000000000;
const MONTH_START_UTC8 = Date.UTC(2023, 9, 31, 16);
const UTC8 = fixedTimeZone(480);

function generator(clock: { t: number }, ip: number[] = [127, 0, 0, 1], tz: TimeZoneOffset = UTC8) {
  return new UniqKeyGenerator({
    ip: Uint8Array.from(ip),
    pid: 0x11234, // only the low 16 bits are kept
    classLoaderHash: 0x18b4aac2,
    now: () => clock.t,
    timeZone: tz,
  });
}

describe('UNIQ_KEY', () => {
  test('layout: ip | pid int16 | class loader hash | ms since local month start | counter', () => {
    const clock = { t: NOW };
    const g = generator(clock);
    assert.equal(NOW - MONTH_START_UTC8, 1232000000);
    assert.equal(g.next(), '7F000001' + '1234' + '18B4AAC2' + '496ED400' + '0000');
    assert.equal(g.next(), '7F000001123418B4AAC2496ED4000001');
  });

  test('the counter is 16 bits and wraps', () => {
    const g = generator({ t: NOW });
    let last = '';
    for (let i = 0; i <= 0xffff; i++) last = g.next();
    assert.ok(last.endsWith('FFFF'));
    assert.ok(g.next().endsWith('0000'));
  });

  test('the time restarts at the next local month', () => {
    const clock = { t: NOW };
    const g = generator(clock);
    clock.t = Date.UTC(2023, 10, 30, 16) + 5; // 2023-12-01 00:00:00.005 in UTC+8
    assert.equal(g.next().slice(20, 28), '00000005');
  });

  test('a clock stepped back a little is clamped to 0; further back wraps like Java', () => {
    const clock = { t: MONTH_START_UTC8 };
    const g = generator(clock);
    clock.t = MONTH_START_UTC8 - 999_999;
    assert.equal(g.next().slice(20, 28), '00000000');
    clock.t = MONTH_START_UTC8 - 2_000_000;
    assert.equal(g.next().slice(20, 28), 'FFE17B80');
  });

  test('IPv6 client ip gives 56 characters', () => {
    const ip = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    const id = generator({ t: NOW }, ip).next();
    assert.equal(id.length, 56);
    assert.equal(uniqKeyIp(id), 'fe80::1');
    assert.equal(uniqKeyPid(id), 0x1234);
    assert.equal(uniqKeyTimestamp(id, NOW + 1000, UTC8), NOW);
  });

  test('reading back time, ip and pid', () => {
    const id = generator({ t: NOW }).next();
    assert.equal(uniqKeyTimestamp(id, NOW + 60_000, UTC8), NOW);
    // Read in UTC the span lands after "now" in this month, so Java's rule takes last month: wrong by
    // weeks. The reader must use the producer's zone.
    assert.equal(uniqKeyTimestamp(id, NOW + 60_000, fixedTimeZone(0)), Date.UTC(2023, 9, 1) + 1232000000);
    assert.equal(uniqKeyIp(id), '127.0.0.1');
    assert.equal(uniqKeyPid(id), 0x1234);
    // A real 4.9.x id: 127.0.0.1, pid 2604.
    assert.equal(uniqKeyIp('7F0000010A2C18B4AAC2336B6E8D0000'), '127.0.0.1');
    assert.equal(uniqKeyPid('7F0000010A2C18B4AAC2336B6E8D0000'), 2604);
  });

  test('an id from the end of last month read early this month uses last month', () => {
    const made = Date.UTC(2023, 10, 30, 15); // 2023-11-30 23:00 UTC+8
    const id = generator({ t: made }).next();
    const readAt = Date.UTC(2023, 10, 30, 17); // 2023-12-01 01:00 UTC+8
    assert.equal(uniqKeyTimestamp(id, readAt, UTC8), made);
  });

  test('bad ids and environments are ValidationErrors', () => {
    assert.throws(() => uniqKeyTimestamp('XYZ', NOW, UTC8), ValidationError);
    assert.throws(() => uniqKeyIp('0'.repeat(30)), ValidationError);
    assert.throws(() => generator({ t: NOW }, [1, 2, 3]), ValidationError);
  });
});

describe('start of month in local time', () => {
  test('fixed offsets', () => {
    assert.equal(startOfMonth(NOW, UTC8), MONTH_START_UTC8);
    assert.equal(startOfMonth(NOW, fixedTimeZone(0)), Date.UTC(2023, 10, 1));
    assert.equal(startOfMonth(NOW, fixedTimeZone(-300)), Date.UTC(2023, 10, 1, 5));
    assert.equal(startOfMonth(NOW, UTC8, 1), Date.UTC(2023, 10, 30, 16));
    assert.equal(startOfMonth(Date.UTC(2024, 0, 15), fixedTimeZone(0), -1), Date.UTC(2023, 11, 1));
  });

  test('the offset in force at the month start is used, not the current one (DST)', () => {
    const switchAt = Date.UTC(2023, 2, 26, 1); // CET → CEST
    const europe: TimeZoneOffset = (t) => (t >= switchAt ? 2 : 1) * 3_600_000;
    assert.equal(startOfMonth(Date.UTC(2023, 2, 28), europe), Date.UTC(2023, 1, 28, 23));
    assert.equal(startOfMonth(Date.UTC(2023, 2, 28), europe, 1), Date.UTC(2023, 2, 31, 22));
  });
});
