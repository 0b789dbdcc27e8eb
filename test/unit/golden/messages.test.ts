/**
 * Stored message records, the pull body and the batch body written by the official 4.9.8
 * MessageDecoder (and CommitLog's pre-encoder): decode each (whole, back to back with another), compare
 * every field with the values Java recorded, re-encode and compare bytes, and refuse truncations.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import {
  createOffsetMsgId,
  decodeBatch,
  decodeMessage,
  decodeMessages,
  decompressBody,
  encodeBatch,
  encodeMessage,
  type HostAddress,
  ipToBytes,
  javaPropertiesOrder,
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
  Message,
  MessageExt,
  MessageSysFlag,
  messageBodyCrc,
  messageProperties2String,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
  readStoredRecordHeader,
} from '../../../src/common/message/index.js';
import {
  type GoldenDecodedMessage,
  type GoldenHost,
  type GoldenMessageFields,
  type GoldenMessageRecord,
  goldenFile,
  goldenManifest,
} from '../../golden-fixtures.js';

const golden = goldenManifest().messages;
type FileRecord = GoldenMessageRecord & {
  file: string;
  length: number;
  fields: GoldenMessageFields;
  decoded: GoldenDecodedMessage;
  expectedOffsetMsgId: string;
};
const records = golden.records.filter((r): r is FileRecord => r.file !== null);

function isCompressed(sysFlag: number): boolean {
  return (sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0;
}

function sameHost(actual: HostAddress, expected: GoldenHost, what: string): void {
  // Java's getHostAddress() writes IPv6 uncompressed (2001:db8:0:0:0:0:0:5), ours per RFC 5952
  // (2001:db8::5): the same address, so the bytes are compared.
  assert.equal(ipToBytes(actual.address).toString('hex'), expected.addressHex, `${what} address`);
  assert.equal(ipToBytes(expected.ip).toString('hex'), expected.addressHex, `${what}: Java's text`);
  assert.equal(actual.port, expected.port, `${what} port`);
}

function sameProperties(actual: ReadonlyMap<string, string>, expected: Record<string, string>): void {
  assert.deepEqual(Object.fromEntries(actual), expected);
}

/** Every field of a record decoded without inflating, against the values handed to encode. */
function sameRawFields(ext: MessageExt, f: GoldenMessageFields, what: string): void {
  assert.equal(ext.topic, f.topic, `${what}: topic`);
  assert.equal(Buffer.byteLength(ext.topic, 'utf8'), f.topicUtf8Length, `${what}: topic length`);
  assert.equal(ext.queueId, f.queueId, `${what}: queueId`);
  assert.equal(ext.flag, f.flag, `${what}: flag`);
  assert.equal(ext.queueOffset, BigInt(f.queueOffset), `${what}: queueOffset`);
  assert.equal(ext.commitLogOffset, BigInt(f.commitLogOffset), `${what}: commitLogOffset`);
  assert.equal(ext.sysFlag, f.sysFlag, `${what}: sysFlag`);
  assert.equal(ext.bornTimestamp, BigInt(f.bornTimestamp), `${what}: bornTimestamp`);
  sameHost(ext.bornHost, f.bornHost, `${what}: bornHost`);
  assert.equal(ext.storeTimestamp, BigInt(f.storeTimestamp), `${what}: storeTimestamp`);
  sameHost(ext.storeHost, f.storeHost, `${what}: storeHost`);
  assert.equal(ext.reconsumeTimes, f.reconsumeTimes, `${what}: reconsumeTimes`);
  assert.equal(
    ext.preparedTransactionOffset,
    BigInt(f.preparedTransactionOffset),
    `${what}: preparedTransactionOffset`,
  );
  assert.equal(ext.bodyCRC, f.bodyCRC, `${what}: bodyCRC`);
  assert.equal(ext.body.length, f.bodyLength, `${what}: body length`);
  assert.equal(ext.body.toString('hex'), f.bodyHex, `${what}: stored body`);
  // The fixtures set BODYCRC as CommitLog does: CRC32 of the stored body, sign bit cleared.
  assert.equal(messageBodyCrc(ext.body), f.bodyCRC, `${what}: CRC of the stored body`);
  assert.equal(Buffer.from(f.propertiesString, 'utf8').toString('hex'), f.propertiesHex, `${what}: hex`);
  sameProperties(ext.properties, f.properties);
  // Decoded properties keep the wire order, and our HashMap model gives Java's order from the keys.
  assert.equal(messageProperties2String(ext.properties), f.propertiesString, `${what}: wire order`);
  assert.equal(
    messageProperties2String(javaPropertiesOrder(ext.properties)),
    f.propertiesString,
    `${what}: Java HashMap order`,
  );
}

/** A record decoded as a consumer does (body inflated), against what clientDecode returned. */
function sameClientDecode(
  ext: MessageExt,
  d: GoldenDecodedMessage,
  f: GoldenMessageFields,
  offsetMsgId: string,
  what: string,
): void {
  assert.equal(d.ok, true, `${what}: Java decoded it`);
  assert.equal(ext.msgId, d.msgId, `${what}: msgId`);
  assert.equal(ext.offsetMsgId, d.offsetMsgId, `${what}: offsetMsgId`);
  assert.equal(ext.offsetMsgId, offsetMsgId, `${what}: expected offsetMsgId`);
  assert.equal(ext.storeSize, d.storeSize, `${what}: storeSize`);
  assert.equal(ext.topic, d.topic, `${what}: topic`);
  // 4.9.8 keeps COMPRESSED_FLAG after inflating the body; our decoder clears it (as 5.x does) so the
  // message describes the body it holds. The raw decode checks Java's stored value.
  assert.equal(ext.sysFlag, d.sysFlag & ~MessageSysFlag.COMPRESSED_FLAG, `${what}: sysFlag`);
  assert.equal(ext.queueOffset, BigInt(d.queueOffset), `${what}: queueOffset`);
  assert.equal(ext.commitLogOffset, BigInt(d.commitLogOffset), `${what}: commitLogOffset`);
  sameHost(ext.bornHost, d.bornHost, `${what}: bornHost`);
  sameHost(ext.storeHost, d.storeHost, `${what}: storeHost`);
  // Java leaves the body null for a zero BODY length; our model has an empty body instead.
  assert.equal(ext.body.toString('hex'), d.bodyHex ?? '', `${what}: body`);
  assert.equal(ext.body.toString('hex'), f.originalBodyHex, `${what}: body before compression`);
  sameProperties(ext.properties, d.properties);
  // Fields clientDecode returned but the manifest's `decoded` leaves out are the stored ones.
  assert.equal(ext.queueId, f.queueId, `${what}: queueId`);
  assert.equal(ext.flag, f.flag, `${what}: flag`);
  assert.equal(ext.bornTimestamp, BigInt(f.bornTimestamp), `${what}: bornTimestamp`);
  assert.equal(ext.storeTimestamp, BigInt(f.storeTimestamp), `${what}: storeTimestamp`);
  assert.equal(ext.reconsumeTimes, f.reconsumeTimes, `${what}: reconsumeTimes`);
  assert.equal(
    ext.preparedTransactionOffset,
    BigInt(f.preparedTransactionOffset),
    `${what}: preparedTransactionOffset`,
  );
  assert.equal(ext.bodyCRC, f.bodyCRC, `${what}: bodyCRC`);
}

/** The MessageExt Java handed to encode, built from the recorded fields (body before compression). */
function messageFromFields(f: GoldenMessageFields): MessageExt {
  const ext = new MessageExt();
  ext.topic = f.topic;
  ext.queueId = f.queueId;
  ext.flag = f.flag;
  ext.queueOffset = BigInt(f.queueOffset);
  ext.commitLogOffset = BigInt(f.commitLogOffset);
  ext.sysFlag = f.sysFlag;
  ext.bornTimestamp = BigInt(f.bornTimestamp);
  ext.bornHost = { address: f.bornHost.ip, port: f.bornHost.port };
  ext.storeTimestamp = BigInt(f.storeTimestamp);
  ext.storeHost = { address: f.storeHost.ip, port: f.storeHost.port };
  ext.reconsumeTimes = f.reconsumeTimes;
  ext.preparedTransactionOffset = BigInt(f.preparedTransactionOffset);
  ext.bodyCRC = f.bodyCRC;
  ext.body = Buffer.from(f.originalBodyHex, 'hex');
  // The manifest lists the HashMap sorted by key, which loses the insertion order that decides the
  // order of keys sharing a bucket (UNIQ_KEY and CLUSTER do at 16 buckets). Java's iteration order,
  // taken from propertiesString, is an insertion order that gives the same HashMap.
  const order = f.propertiesString
    .split(PROPERTY_SEPARATOR)
    .filter((pair) => pair.length > 0)
    .map((pair) => pair.slice(0, pair.indexOf(NAME_VALUE_SEPARATOR)));
  assert.deepEqual([...order].sort(), Object.keys(f.properties).sort());
  ext.properties = new Map(order.map((k) => [k, f.properties[k] as string]));
  return ext;
}

/** Record bytes around the BODY: everything but TOTALSIZE, BODY length and BODY itself. */
function aroundBody(buf: Buffer): { head: Buffer; body: Buffer; tail: Buffer } {
  const h = readStoredRecordHeader(buf);
  assert.equal(h.kind, 'message');
  if (h.kind !== 'message') throw new Error('unreachable');
  return {
    head: buf.subarray(4, h.bodyOffset - 4),
    body: buf.subarray(h.bodyOffset, h.bodyOffset + h.bodyLength),
    tail: buf.subarray(h.bodyOffset + h.bodyLength),
  };
}

/** Prefix lengths that cut inside the record: header, hosts, body, topic, properties, last byte. */
function truncations(length: number): number[] {
  return [0, 3, 7, 35, 60, Math.floor(length / 2), length - 3, length - 1];
}

describe('golden message records (MessageDecoder.encode, 4.9.8)', () => {
  test('the fixtures include every record the manifest lists', () => {
    assert.ok(records.length >= 14);
    for (const r of records) assert.equal(goldenFile(r.file).length, r.length, r.name);
  });

  records.forEach((g, index) => {
    const next = records[(index + 1) % records.length] as FileRecord;
    const f = g.fields;
    test(g.name, () => {
      const bytes = goldenFile(g.file);
      assert.equal(bytes.length, g.length);

      // Stored form: no inflating, so the body and SYSFLAG are exactly what Java wrote.
      const raw = decodeMessage(bytes, 0, { decompress: false, checkCRC: true });
      sameRawFields(raw, f, g.name);
      assert.equal(raw.storeSize, g.length);
      assert.equal(raw.magicCode, MESSAGE_MAGIC_CODE);
      assert.equal(raw.offsetMsgId, g.expectedOffsetMsgId);
      assert.equal(createOffsetMsgId(raw.storeHost, raw.commitLogOffset), g.expectedOffsetMsgId);

      // Consumer form, as clientDecode gives it.
      sameClientDecode(decodeMessage(bytes), g.decoded, f, g.expectedOffsetMsgId, g.name);
      const [only, ...rest] = decodeMessages(bytes);
      assert.ok(only);
      assert.equal(rest.length, 0);
      sameClientDecode(only, g.decoded, f, g.expectedOffsetMsgId, `${g.name} via decodeMessages`);

      // Back to back with the next fixture.
      const pair = decodeMessages(Buffer.concat([bytes, goldenFile(next.file)]), { decompress: false });
      assert.equal(pair.length, 2);
      sameRawFields(pair[0] as MessageExt, f, `${g.name} (first of two)`);
      sameRawFields(pair[1] as MessageExt, next.fields, `${next.name} (second of two)`);
      assert.equal((pair[1] as MessageExt).offsetMsgId, next.expectedOffsetMsgId);

      // Re-encoding the stored form gives Java's bytes, compressed bodies included.
      assert.equal(encodeMessage(raw, { propertyOrder: 'java' }).toString('hex'), bytes.toString('hex'));

      // Encoding the message Java was given gives Java's bytes; deflate output may differ between zlib
      // builds, so for a compressed body the inflated body and every other byte are compared.
      const ours = encodeMessage(messageFromFields(f), {
        propertyOrder: 'java',
        compress: isCompressed(f.sysFlag),
      });
      if (isCompressed(f.sysFlag)) {
        const a = aroundBody(ours);
        const b = aroundBody(bytes);
        assert.equal(a.head.toString('hex'), b.head.toString('hex'), 'bytes before BODY');
        assert.equal(a.tail.toString('hex'), b.tail.toString('hex'), 'bytes after BODY');
        assert.equal(decompressBody(a.body, f.sysFlag).toString('hex'), f.originalBodyHex);
        assert.equal(decompressBody(b.body, f.sysFlag).toString('hex'), f.originalBodyHex);
      } else {
        assert.equal(ours.toString('hex'), bytes.toString('hex'));
      }

      for (const n of truncations(bytes.length)) {
        const cut = bytes.subarray(0, n);
        assert.throws(() => decodeMessage(cut), RocketMQError, `${g.name} cut to ${n} bytes`);
        if (n > 0) assert.throws(() => decodeMessages(cut), RocketMQError, `${g.name} cut to ${n} bytes`);
      }
    });
  });

  test('a 128-byte topic: 4.9.8 encode fails, ours never writes a wrapped 1-byte TOPIC length', () => {
    const g = golden.records.find((r) => r.name === 'topic-128-overflow');
    assert.ok(g);
    assert.equal(g.file, null);
    assert.equal(g.encodeError, 'java.nio.BufferOverflowException');
    const base = records.find((r) => r.name === 'plain-ipv4');
    assert.ok(base);
    const ext = messageFromFields(base.fields);
    ext.topic = 't'.repeat(128);
    // Our encoder writes such a topic as a V2 record (2-byte TOPIC length, as 5.x does) instead of
    // failing; a 4.9.8 reader, which ignores MAGICCODE, could not parse it (see the report).
    let out: Buffer | undefined;
    try {
      out = encodeMessage(ext, { propertyOrder: 'java' });
    } catch (e) {
      assert.ok(e instanceof RocketMQError, String(e));
    }
    if (out !== undefined) {
      assert.equal(out.readInt32BE(4), MESSAGE_MAGIC_CODE_V2);
      assert.equal(decodeMessage(out).topic, ext.topic);
    }
  });
});

describe('golden pull body (three stored records back to back)', () => {
  const pull = golden.pullBody;
  const bytes = goldenFile(pull.file);

  test('decodes every record with the values Java recorded', () => {
    assert.equal(bytes.length, pull.length);
    assert.equal(pull.messages.length, 3);
    const raw = decodeMessages(bytes, { decompress: false, checkCRC: true });
    const client = decodeMessages(bytes);
    assert.equal(raw.length, pull.messages.length);
    assert.equal(client.length, pull.messages.length);
    let position = 0;
    pull.messages.forEach((m, i) => {
      const what = `record ${i} (${m.from})`;
      assert.equal(BigInt(m.position), BigInt(position), `${what}: position`);
      const r = raw[i] as MessageExt;
      const c = client[i] as MessageExt;
      const d = pull.decodes[i];
      assert.ok(d);
      sameRawFields(r, m.fields, what);
      assert.equal(r.storeSize, m.length, `${what}: storeSize`);
      sameRawFields(decodeMessage(bytes, position, { decompress: false }), m.fields, `${what} at its offset`);
      assert.equal(c.msgId, d.msgId, `${what}: msgId`);
      assert.equal(c.offsetMsgId, d.offsetMsgId, `${what}: offsetMsgId`);
      assert.equal(c.queueOffset, BigInt(d.queueOffset), `${what}: queueOffset`);
      assert.equal(c.commitLogOffset, BigInt(d.commitLogOffset), `${what}: commitLogOffset`);
      assert.equal(c.body.length, d.bodyLength, `${what}: inflated body length`);
      assert.equal(c.body.toString('hex'), m.fields.originalBodyHex, `${what}: inflated body`);
      sameProperties(c.properties, m.fields.properties);
      position += m.length;
    });
    assert.equal(position, bytes.length);
    // Re-encoding each stored record gives the body back byte for byte.
    const again = Buffer.concat(raw.map((r) => encodeMessage(r, { propertyOrder: 'java' })));
    assert.equal(again.toString('hex'), bytes.toString('hex'));
  });

  test('two pull bodies back to back decode as six records', () => {
    const twice = decodeMessages(Buffer.concat([bytes, bytes]), { decompress: false });
    assert.equal(twice.length, 6);
    twice.forEach((r, i) => {
      const m = pull.messages[i % 3];
      assert.ok(m);
      sameRawFields(r, m.fields, `record ${i}`);
    });
    const client = decodeMessages(Buffer.concat([bytes, bytes]));
    assert.deepEqual(
      client.map((c) => c.offsetMsgId),
      [...pull.decodes, ...pull.decodes].map((d) => d.offsetMsgId),
    );
  });

  test('a body cut inside a record is refused with a typed error', () => {
    // Cuts on a record boundary (223, 792) leave a valid shorter body, so they are not among these.
    for (const n of [1, 100, 222, 224, 500, 791, 793, 1000, bytes.length - 1]) {
      assert.throws(() => decodeMessages(bytes.subarray(0, n)), RocketMQError, `cut to ${n} bytes`);
    }
  });
});

describe('golden batch body (MessageDecoder.encodeMessages)', () => {
  const batch = golden.batch;
  const bytes = goldenFile(batch.file);

  function sameBatch(actual: readonly Message[], what: string): void {
    assert.equal(actual.length, batch.decodeMessages.length, what);
    batch.decodeMessages.forEach((e, i) => {
      const m = actual[i] as Message;
      assert.equal(m.flag, e.flag, `${what} ${i}: flag`);
      assert.equal(m.body.toString('hex'), e.bodyHex, `${what} ${i}: body`);
      sameProperties(m.properties, e.properties);
      assert.equal(messageProperties2String(m.properties), batch.inputs[i]?.propertiesString);
    });
  }

  test('decodes with the values Java recorded and re-encodes to the same bytes', () => {
    assert.equal(bytes.length, batch.length);
    const decoded = decodeBatch(bytes, { checkTotalSize: true });
    sameBatch(decoded, 'decoded');
    assert.equal(encodeBatch(decoded).toString('hex'), bytes.toString('hex'));
  });

  test('messages built as Java built them encode to the same bytes', () => {
    const built = batch.inputs.map((input) => {
      const uniqKey = input.properties.UNIQ_KEY;
      const seq = input.properties.seq;
      const tags = input.properties.TAGS;
      const keys = input.properties.KEYS;
      assert.ok(uniqKey !== undefined && seq !== undefined && tags !== undefined && keys !== undefined);
      // new Message(topic, tags, keys, body), then a fixed UNIQ_KEY and a user property.
      const m = new Message(input.topic, Buffer.from(input.bodyHex, 'hex'), { tags, keys, flag: input.flag });
      m.putProperty('UNIQ_KEY', uniqKey);
      m.putUserProperty('seq', seq);
      sameProperties(m.properties, input.properties);
      return m;
    });
    assert.equal(encodeBatch(built, { propertyOrder: 'java' }).toString('hex'), bytes.toString('hex'));
  });

  test('two batch bodies back to back decode as six messages', () => {
    const twice = decodeBatch(Buffer.concat([bytes, bytes]), { checkTotalSize: true });
    assert.equal(twice.length, 6);
    sameBatch(twice.slice(0, 3), 'first');
    sameBatch(twice.slice(3), 'second');
  });

  test('a body cut inside an entry is refused with a typed error', () => {
    const sizes: number[] = [];
    for (let p = 0; p < bytes.length; p += bytes.readInt32BE(p)) sizes.push(p);
    for (const n of [1, 19, 20, 30, bytes.length - 1, ...sizes.slice(1).map((s) => s + 5)]) {
      assert.throws(() => decodeBatch(bytes.subarray(0, n)), RocketMQError, `cut to ${n} bytes`);
    }
  });
});

describe('golden CommitLog pre-encoded record', () => {
  const cmp = golden.commitLogComparison;

  test('differs from MessageDecoder.encode only in QUEUEOFFSET and PHYSICALOFFSET', () => {
    const pre = goldenFile(cmp.file);
    const plain = goldenFile(cmp.comparedWith.split(' ')[0] ?? '');
    assert.equal(pre.length, plain.length);
    const differing: number[] = [];
    for (let i = 0; i < pre.length; i++) if (pre[i] !== plain[i]) differing.push(i);
    assert.deepEqual(differing, cmp.differingByteOffsets);

    const base = records.find((r) => r.file === cmp.comparedWith.split(' ')[0]);
    assert.ok(base);
    const decoded = decodeMessage(pre, 0, { checkCRC: true });
    // The broker fills both offsets in under the put lock; the pre-encoded buffer holds zeros.
    assert.equal(decoded.queueOffset, 0n);
    assert.equal(decoded.commitLogOffset, 0n);
    sameRawFields(decoded, { ...base.fields, queueOffset: '0', commitLogOffset: '0' }, 'pre-encoded');
    assert.equal(encodeMessage(decoded, { propertyOrder: 'java' }).toString('hex'), pre.toString('hex'));
    const ext = messageFromFields(base.fields);
    ext.queueOffset = 0n;
    ext.commitLogOffset = 0n;
    assert.equal(encodeMessage(ext, { propertyOrder: 'java' }).toString('hex'), pre.toString('hex'));
  });
});
