/**
 * Message ids recorded from the official 4.9.8 code: offsetMsgIds (MessageDecoder.createMessageId /
 * decodeMessageId) and UNIQ_KEYs (MessageClientIDSetter), built and taken apart with our public API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import {
  createOffsetMsgId,
  decodeOffsetMsgId,
  fixedTimeZone,
  ipToBytes,
  startOfMonth,
  UniqKeyGenerator,
  uniqKeyIp,
  uniqKeyPid,
  uniqKeyTimestamp,
} from '../../../src/common/message/index.js';
import { type GoldenUniqKey, goldenManifest } from '../../golden-fixtures.js';

const ids = goldenManifest().messageIds;
const UTC = fixedTimeZone(0);
/** A 31-day month, so every recorded span (below 28 days) lies inside it. */
const JANUARY = Date.UTC(2024, 0, 1);

/** Prefixes of an id that cut it short of both valid lengths (32 and 56 hex characters). */
function cuts(id: string): number[] {
  return [0, 1, 8, 16, 31, id.length - 1].filter((n) => n < id.length && n !== 32);
}

describe('golden offsetMsgIds', () => {
  test('the manifest covers IPv4 and IPv6 stores and offsets up to Long.MAX_VALUE and -1', () => {
    assert.ok(ids.offsetMsgIds.some((g) => g.msgId.length === 56));
    assert.ok(ids.offsetMsgIds.some((g) => g.commitLogOffset === '9223372036854775807'));
    assert.ok(ids.offsetMsgIds.some((g) => g.commitLogOffset === '-1'));
  });

  for (const g of ids.offsetMsgIds) {
    test(`${g.ip}:${g.port} @ ${g.commitLogOffset}`, () => {
      const offset = BigInt(g.commitLogOffset);
      assert.equal(createOffsetMsgId({ address: g.ip, port: g.port }, offset), g.msgId);

      const decoded = decodeOffsetMsgId(g.msgId);
      // Java's getHostAddress() text for IPv6 is uncompressed; ours is RFC 5952: compare the bytes.
      assert.equal(ipToBytes(decoded.address.address).toString('hex'), g.decodeMessageId.address.addressHex);
      assert.equal(
        ipToBytes(g.decodeMessageId.address.ip).toString('hex'),
        g.decodeMessageId.address.addressHex,
      );
      assert.equal(decoded.address.port, g.decodeMessageId.address.port);
      assert.equal(decoded.offset, BigInt(g.decodeMessageId.offset));
      assert.equal(decoded.offset, offset);
      // Lower case is read too, and the id round-trips.
      assert.deepEqual(decodeOffsetMsgId(g.msgId.toLowerCase()), decoded);
      assert.equal(createOffsetMsgId(decoded.address, decoded.offset), g.msgId);

      for (const n of cuts(g.msgId)) {
        assert.throws(() => decodeOffsetMsgId(g.msgId.slice(0, n)), RocketMQError, `cut to ${n}`);
      }
    });
  }
});

/** The span written into the id: the int Java cast it to, read back unsigned. */
function spanOf(g: GoldenUniqKey): number {
  return g.inputs.msSinceMonthStart >>> 0;
}

describe('golden UNIQ_KEYs (MessageClientIDSetter)', () => {
  test('the manifest covers composed and generated ids, IPv4 and IPv6', () => {
    assert.ok(ids.uniqKeys.some((g) => g.how === 'generated'));
    assert.ok(ids.uniqKeys.some((g) => g.how === 'composed'));
    assert.ok(ids.uniqKeys.some((g) => g.length === 56));
  });

  for (const g of ids.uniqKeys) {
    test(`${g.how} ${g.id}`, () => {
      assert.equal(g.id.length, g.length);
      if (g.how === 'generated') assert.equal(g.equalsComposed, true);
      assert.equal(String(spanOf(g)), g.nearlyTime.msSinceMonthStart);
      assert.equal(g.inputs.pidInt16, g.inputs.pid & 0xffff);
      assert.equal(g.inputs.counterInt16, g.inputs.counter & 0xffff);

      // Our generator in the same state: same ip, pid, class loader hash, clock `span` ms into the
      // month, and `counter` ids already handed out (Java's counter is an int written as a short).
      const now = JANUARY + spanOf(g);
      const gen = new UniqKeyGenerator({
        ip: Buffer.from(g.inputs.ipHex, 'hex'),
        pid: g.inputs.pid,
        classLoaderHash: g.inputs.classLoaderHash,
        now: () => now,
        timeZone: UTC,
      });
      for (let i = 0; i < g.inputs.counterInt16; i++) gen.next();
      assert.equal(gen.next(), g.id);

      // getIPStrFromID gives IPv6 as 8 zero-padded groups; ours gives RFC 5952 text: compare the bytes.
      assert.equal(ipToBytes(uniqKeyIp(g.id)).toString('hex'), g.getIPFromIDHex);
      assert.equal(ipToBytes(g.getIPStrFromID).toString('hex'), g.getIPFromIDHex);
      assert.equal(g.getIPFromIDHex, g.inputs.ipHex);
      assert.equal(uniqKeyPid(g.id), g.getPidFromID);
      assert.equal(uniqKeyPid(g.id.toLowerCase()), g.getPidFromID);

      // getNearlyTimeFromID: start of this month + span, or of the previous month when that is not
      // before now. Only the offset inside the month is reproducible.
      const span = spanOf(g);
      const later = Date.UTC(2024, 2, 1) + span + 1;
      const inMonth = uniqKeyTimestamp(g.id, later, UTC);
      assert.equal(inMonth, Date.UTC(2024, 2, 1) + span);
      const atSpan = uniqKeyTimestamp(g.id, Date.UTC(2024, 2, 1) + span, UTC);
      assert.equal(atSpan, Date.UTC(2024, 1, 1) + span);
      for (const t of [inMonth, atSpan]) {
        assert.equal(String(t - startOfMonth(t, UTC)), g.nearlyTime.msSinceMonthStart);
      }

      for (const n of cuts(g.id)) {
        assert.throws(() => uniqKeyPid(g.id.slice(0, n)), RocketMQError, `pid, cut to ${n}`);
        assert.throws(() => uniqKeyIp(g.id.slice(0, n)), RocketMQError, `ip, cut to ${n}`);
        assert.throws(() => uniqKeyTimestamp(g.id.slice(0, n), later, UTC), RocketMQError, `time, ${n}`);
      }
    });
  }
});
