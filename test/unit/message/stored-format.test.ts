import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  decodeMessage,
  decodeMessages,
  encodeMessage,
  MESSAGE_MAGIC_CODE_V2,
  MessageExt,
  messageBodyCrc,
  readStoredRecordHeader,
  storedRecordSize,
  UnsupportedCompressionError,
} from '../../../src/common/message/index.js';
import { annotated } from './annotated.js';

/** Topic "T1", body "hi", properties TAGS=A, IPv4 hosts: 91 + 2 + 2 + 6 = 101 bytes. */
const MINIMAL_IPV4 = annotated(
  ['TOTALSIZE 101', '00000065'],
  ['MAGICCODE V1', 'DAA320A7'],
  ['BODYCRC crc32("hi") & 0x7FFFFFFF', '58932AAC'],
  ['QUEUEID 3', '00000003'],
  ['FLAG 7', '00000007'],
  ['QUEUEOFFSET 16', '0000000000000010'],
  ['PHYSICALOFFSET 4096', '0000000000001000'],
  ['SYSFLAG 0', '00000000'],
  ['BORNTIMESTAMP 1700000000000', '0000018BCFE56800'],
  ['BORNHOST 10.0.0.1:54321', '0A000001 0000D431'],
  ['STORETIMESTAMP 1700000001000', '0000018BCFE56BE8'],
  ['STOREHOST 192.168.1.2:10911', 'C0A80102 00002A9F'],
  ['RECONSUMETIMES 1', '00000001'],
  ['PREPARED TX OFFSET 0', '0000000000000000'],
  ['BODY length 2', '00000002'],
  ['BODY "hi"', '6869'],
  ['TOPIC length 2 (int8)', '02'],
  ['TOPIC "T1"', '5431'],
  ['PROPERTIES length 6', '0006'],
  ['PROPERTIES TAGS\\u0001A', '54414753 01 41'],
);

/** Same message with both hosts IPv6 (SYSFLAG 0x30): 101 + 2 × 12 = 125 bytes. */
const IPV6_HOSTS = annotated(
  ['TOTALSIZE 125', '0000007D'],
  ['MAGICCODE V1', 'DAA320A7'],
  ['BODYCRC', '58932AAC'],
  ['QUEUEID 3', '00000003'],
  ['FLAG 7', '00000007'],
  ['QUEUEOFFSET 16', '0000000000000010'],
  ['PHYSICALOFFSET 4096', '0000000000001000'],
  ['SYSFLAG BORNHOST_V6 | STOREHOST_V6', '00000030'],
  ['BORNTIMESTAMP', '0000018BCFE56800'],
  ['BORNHOST [fe80::1]:54321', 'FE800000000000000000000000000001 0000D431'],
  ['STORETIMESTAMP', '0000018BCFE56BE8'],
  ['STOREHOST [2001:db8::2]:10911', '20010DB8000000000000000000000002 00002A9F'],
  ['RECONSUMETIMES 1', '00000001'],
  ['PREPARED TX OFFSET 0', '0000000000000000'],
  ['BODY length 2', '00000002'],
  ['BODY "hi"', '6869'],
  ['TOPIC length 2', '02'],
  ['TOPIC "T1"', '5431'],
  ['PROPERTIES length 6', '0006'],
  ['PROPERTIES', '54414753 01 41'],
);

/** V2 magic: the topic length is an int16, so the record is one byte longer (102). */
const V2_MAGIC = annotated(
  ['TOTALSIZE 102', '00000066'],
  ['MAGICCODE V2', 'DAA320AB'],
  ['BODYCRC', '58932AAC'],
  ['QUEUEID 3', '00000003'],
  ['FLAG 7', '00000007'],
  ['QUEUEOFFSET 16', '0000000000000010'],
  ['PHYSICALOFFSET 4096', '0000000000001000'],
  ['SYSFLAG 0', '00000000'],
  ['BORNTIMESTAMP', '0000018BCFE56800'],
  ['BORNHOST', '0A000001 0000D431'],
  ['STORETIMESTAMP', '0000018BCFE56BE8'],
  ['STOREHOST', 'C0A80102 00002A9F'],
  ['RECONSUMETIMES 1', '00000001'],
  ['PREPARED TX OFFSET 0', '0000000000000000'],
  ['BODY length 2', '00000002'],
  ['BODY "hi"', '6869'],
  ['TOPIC length 2 (int16)', '0002'],
  ['TOPIC "T1"', '5431'],
  ['PROPERTIES length 6', '0006'],
  ['PROPERTIES', '54414753 01 41'],
);

function isMessageError(e: unknown): boolean {
  return e instanceof RemotingCommandError && e.what === 'message';
}

function sample(): MessageExt {
  const ext = new MessageExt();
  ext.topic = 'T1';
  ext.body = Buffer.from('hi');
  ext.properties.set('TAGS', 'A');
  ext.bodyCRC = 0x58932aac;
  ext.queueId = 3;
  ext.flag = 7;
  ext.queueOffset = 16n;
  ext.commitLogOffset = 4096n;
  ext.bornTimestamp = 1700000000000n;
  ext.bornHost = { address: '10.0.0.1', port: 54321 };
  ext.storeTimestamp = 1700000001000n;
  ext.storeHost = { address: '192.168.1.2', port: 10911 };
  ext.reconsumeTimes = 1;
  return ext;
}

describe('stored record decode', () => {
  test('minimal IPv4 record: every field', () => {
    assert.equal(MINIMAL_IPV4.length, 101);
    const m = decodeMessage(MINIMAL_IPV4);
    assert.equal(m.storeSize, 101);
    assert.equal(m.bodyCRC, 0x58932aac);
    assert.equal(m.queueId, 3);
    assert.equal(m.flag, 7);
    assert.equal(m.queueOffset, 16n);
    assert.equal(m.commitLogOffset, 4096n);
    assert.equal(m.sysFlag, 0);
    assert.equal(m.bornTimestamp, 1700000000000n);
    assert.deepEqual(m.bornHost, { address: '10.0.0.1', port: 54321 });
    assert.equal(m.storeTimestamp, 1700000001000n);
    assert.deepEqual(m.storeHost, { address: '192.168.1.2', port: 10911 });
    assert.equal(m.reconsumeTimes, 1);
    assert.equal(m.preparedTransactionOffset, 0n);
    assert.equal(m.body.toString(), 'hi');
    assert.equal(m.topic, 'T1');
    assert.deepEqual([...m.properties], [['TAGS', 'A']]);
    assert.equal(m.tags, 'A');
    assert.equal(m.offsetMsgId, 'C0A8010200002A9F0000000000001000');
    assert.equal(m.msgId, m.offsetMsgId, 'no UNIQ_KEY: msgId falls back to the offset id');
    assert.equal(m.magicCode, -626843481);
  });

  test('the header accessor locates the variable parts without decoding them', () => {
    const h = readStoredRecordHeader(MINIMAL_IPV4);
    assert.equal(h.kind, 'message');
    if (h.kind !== 'message') return;
    assert.equal(h.totalSize, 101);
    assert.equal(h.queueOffset, 16n);
    assert.equal(h.physicalOffset, 4096n);
    assert.equal(h.bodyOffset, 88);
    assert.equal(h.bodyLength, 2);
    assert.equal(h.topicOffset, 91);
    assert.equal(h.topicLength, 2);
    assert.equal(h.propertiesOffset, 95);
    assert.equal(h.propertiesLength, 6);
    assert.equal(h.storeHostOffset, 64);
  });

  test('IPv6 born and store hosts', () => {
    assert.equal(IPV6_HOSTS.length, 125);
    const m = decodeMessage(IPV6_HOSTS);
    assert.equal(m.sysFlag, 0x30);
    assert.deepEqual(m.bornHost, { address: 'fe80::1', port: 54321 });
    assert.deepEqual(m.storeHost, { address: '2001:db8::2', port: 10911 });
    assert.equal(m.offsetMsgId, '20010DB800000000000000000000000200002A9F0000000000001000');
    assert.equal(m.offsetMsgId.length, 56);
    assert.equal(m.topic, 'T1');
  });

  test('V2 magic reads an int16 topic length', () => {
    const m = decodeMessage(V2_MAGIC);
    assert.equal(m.magicCode, MESSAGE_MAGIC_CODE_V2);
    assert.equal(m.topic, 'T1');
    assert.equal(m.storeSize, 102);
    assert.deepEqual(encodeMessage(m), V2_MAGIC, 'V2 is kept on re-encode');
  });

  test('two records back to back, and at an offset', () => {
    const both = Buffer.concat([MINIMAL_IPV4, IPV6_HOSTS]);
    const list = decodeMessages(both);
    assert.equal(list.length, 2);
    assert.equal(list[0]?.storeHost.address, '192.168.1.2');
    assert.equal(list[1]?.storeHost.address, '2001:db8::2');
    const second = decodeMessage(both, 101);
    assert.equal(second.storeSize, 125);
    assert.deepEqual(decodeMessages(Buffer.alloc(0)), []);
  });

  test('truncation at every byte gives a typed error', () => {
    for (const rec of [MINIMAL_IPV4, IPV6_HOSTS, V2_MAGIC]) {
      for (let n = 0; n < rec.length; n++) {
        assert.throws(() => decodeMessage(rec.subarray(0, n)), isMessageError, `cut at ${n}`);
        // A whole record followed by a partial one fails as well: never a silent short list.
        if (n > 0)
          assert.throws(() => decodeMessages(Buffer.concat([rec, rec.subarray(0, n)])), isMessageError);
      }
    }
  });

  test('the body is a view by default, a copy on request, and may be skipped', () => {
    const buf = Buffer.from(MINIMAL_IPV4);
    const view = decodeMessage(buf);
    const copy = decodeMessage(buf, 0, { copyBody: true });
    buf[88] = 0x48; // 'H'
    assert.equal(view.body.toString(), 'Hi');
    assert.equal(copy.body.toString(), 'hi');
    assert.equal(decodeMessage(MINIMAL_IPV4, 0, { readBody: false }).body.length, 0);
  });

  test('body CRC is checked on request', () => {
    const bad = Buffer.from(MINIMAL_IPV4);
    bad.writeInt32BE(0x12345678, 8);
    assert.equal(decodeMessage(bad).body.toString(), 'hi', 'not checked by default, as Java clients');
    assert.throws(
      () => decodeMessage(bad, 0, { checkCRC: true }),
      /body CRC 1486039724 differs from BODYCRC 305419896/,
    );
    assert.equal(
      decodeMessage(MINIMAL_IPV4, 0, { checkCRC: true }).bodyCRC,
      messageBodyCrc(Buffer.from('hi')),
    );
  });

  test('malformed fields are named with their offset', () => {
    const cases: [string, (b: Buffer) => void, RegExp][] = [
      ['unknown magic', (b) => b.writeInt32BE(0x12345678, 4), /unknown MAGICCODE 0x12345678 at offset 4/],
      ['TOTALSIZE too small', (b) => b.writeInt32BE(90, 0), /TOTALSIZE 90 at offset 0 is below the minimum/],
      [
        'TOTALSIZE too large',
        (b) => b.writeInt32BE(102, 0),
        /truncated record at offset 0: TOTALSIZE is 102, 101/,
      ],
      ['negative body length', (b) => b.writeInt32BE(-1, 84), /BODY length -1 at offset 84/],
      ['body past the end', (b) => b.writeInt32BE(50, 84), /BODY length 50 at offset 84/],
      ['negative topic length', (b) => b.writeInt8(-1, 90), /TOPIC length -1 at offset 90/],
      ['negative properties length', (b) => b.writeInt16BE(-6, 93), /PROPERTIES length -6 at offset 93/],
      ['short properties', (b) => b.writeInt16BE(5, 93), /TOTALSIZE 101 but its fields end after 100 bytes/],
      [
        'IPv6 flag without room',
        (b) => b.writeInt32BE(0x30, 36),
        /TOPIC length|BODY length|PROPERTIES length|SYSFLAG/,
      ],
      ['port above 65535', (b) => b.writeInt32BE(70000, 52), /born host port 70000 at offset 52/],
      ['negative store port', (b) => b.writeInt32BE(-1, 68), /store host port -1 at offset 68/],
    ];
    for (const [name, mutate, pattern] of cases) {
      const b = Buffer.from(MINIMAL_IPV4);
      mutate(b);
      assert.throws(
        () => decodeMessage(b),
        (e: unknown) => isMessageError(e) && pattern.test((e as Error).message),
        name,
      );
    }
    assert.throws(() => decodeMessage(MINIMAL_IPV4, 200), /outside the 101-byte buffer/);
  });

  test('BLANK end-of-file record is recognised', () => {
    const blank = annotated(['TOTALSIZE 4000', '00000FA0'], ['MAGICCODE BLANK', 'CBD43194']);
    assert.deepEqual(readStoredRecordHeader(blank), { kind: 'blank', offset: 0, totalSize: 4000 });
    assert.throws(() => decodeMessage(blank), /BLANK record \(end of commit log file\) at offset 0/);
    const after = Buffer.concat([MINIMAL_IPV4, blank]);
    assert.equal(readStoredRecordHeader(after, 101).kind, 'blank');
    assert.throws(() => decodeMessages(after), isMessageError);
  });
});

describe('compressed bodies', () => {
  const plain = Buffer.alloc(5000, 0x61);
  const compressed = deflateSync(plain, { level: 5 });

  function compressedRecord(sysFlag: number, body = compressed): Buffer {
    const ext = sample();
    ext.body = body;
    ext.bodyCRC = messageBodyCrc(body);
    ext.sysFlag = sysFlag;
    return encodeMessage(ext);
  }

  test('COMPRESSED with ZLIB type bits (0x301) and with none (0x1) inflate', () => {
    for (const flag of [0x301, 0x1]) {
      const rec = compressedRecord(flag);
      assert.equal(rec.readInt32BE(36), flag);
      const m = decodeMessage(rec, 0, { checkCRC: true });
      assert.deepEqual(m.body, plain);
      assert.equal(m.sysFlag, flag & ~1, 'COMPRESSED_FLAG cleared, type bits kept');
      const raw = decodeMessage(rec, 0, { decompress: false });
      assert.deepEqual(raw.body, compressed);
      assert.equal(raw.sysFlag, flag);
    }
  });

  test('LZ4 and ZSTD bodies are refused with a typed error', () => {
    assert.throws(() => decodeMessage(compressedRecord(0x101)), UnsupportedCompressionError);
    assert.throws(() => decodeMessage(compressedRecord(0x201)), /ZSTD/);
    assert.equal(decodeMessage(compressedRecord(0x101), 0, { decompress: false }).sysFlag, 0x101);
  });

  test('unknown type bits and corrupt data are typed errors', () => {
    assert.throws(() => decodeMessage(compressedRecord(0x501)), RemotingCommandError);
    assert.throws(() => decodeMessage(compressedRecord(0x301, Buffer.from('not zlib'))), /corrupt zlib body/);
  });

  test('a zip bomb stops at maxBodySize', () => {
    const bomb = deflateSync(Buffer.alloc(8 * 1024 * 1024));
    assert.ok(bomb.length < 10_000);
    assert.throws(
      () => decodeMessage(compressedRecord(0x301, bomb)),
      /decompressed body exceeds 4194304 bytes/,
    );
    assert.throws(() => decodeMessage(compressedRecord(0x301), 0, { maxBodySize: 4999 }), /exceeds 4999/);
    assert.equal(decodeMessage(compressedRecord(0x301), 0, { maxBodySize: 5000 }).body.length, 5000);
  });

  test('encode compresses on request (Java encode(ext, needCompress=true))', () => {
    const ext = sample();
    ext.body = plain;
    ext.sysFlag = 0x301;
    const rec = encodeMessage(ext, { compress: true });
    const back = decodeMessage(rec);
    assert.deepEqual(back.body, plain);
    assert.ok(rec.length < 200);
  });
});

describe('stored record encode', () => {
  test('reproduces the annotated bytes exactly', () => {
    assert.deepEqual(encodeMessage(sample()), MINIMAL_IPV4);
    const v6 = sample();
    v6.bornHost = { address: 'fe80::1', port: 54321 };
    v6.storeHost = { address: '2001:db8::2', port: 10911 };
    assert.deepEqual(encodeMessage(v6), IPV6_HOSTS, 'V6 SYSFLAG bits follow the address families');
  });

  test('decode → encode is the identity on well-formed records', () => {
    for (const rec of [MINIMAL_IPV4, IPV6_HOSTS, V2_MAGIC]) {
      assert.deepEqual(encodeMessage(decodeMessage(rec, 0, { decompress: false })), rec);
    }
  });

  test('sizes: 91 + body + topic + properties, +12 per IPv6 host, +1 for V2', () => {
    assert.equal(storedRecordSize(0, 2, 2, 6), 101);
    assert.equal(storedRecordSize(0x30, 2, 2, 6), 125);
    assert.equal(storedRecordSize(0x10, 0, 0, 0), 103);
    assert.equal(storedRecordSize(0, 2, 2, 6, MESSAGE_MAGIC_CODE_V2), 102);
  });

  test('a topic longer than 127 bytes switches to V2 (5.x autoMessageVersionOnTopicLen)', () => {
    const ext = sample();
    ext.topic = `%RETRY%${'g'.repeat(200)}`;
    const rec = encodeMessage(ext);
    assert.equal(rec.readInt32BE(4), MESSAGE_MAGIC_CODE_V2);
    assert.equal(decodeMessage(rec).topic, ext.topic);
  });

  test('UTF-8 topic and properties lengths are byte counts', () => {
    const ext = sample();
    ext.topic = 'é';
    ext.properties = new Map([['k', '€']]);
    const rec = encodeMessage(ext);
    assert.equal(rec.readInt8(90), 2);
    assert.equal(rec.readInt16BE(93), 5);
    const back = decodeMessage(rec);
    assert.equal(back.topic, 'é');
    assert.equal(back.getProperty('k'), '€');
  });

  test('Java property order on request', () => {
    const ext = sample();
    ext.properties = new Map([
      ['TAGS', 'TagA'],
      ['WAIT', 'true'],
      ['KEYS', 'k'],
    ]);
    const rec = encodeMessage(ext, { propertyOrder: 'java' });
    const h = readStoredRecordHeader(rec);
    assert.equal(h.kind, 'message');
    if (h.kind !== 'message') return;
    const props = rec.toString('utf8', h.propertiesOffset, h.propertiesOffset + h.propertiesLength);
    assert.equal(props, 'KEYS\u0001k\u0002WAIT\u0001true\u0002TAGS\u0001TagA');
  });

  test('refuses values Java could not hold or a record could not carry', () => {
    const cases: [string, (e: MessageExt) => void][] = [
      [
        'queueId',
        (e) => {
          e.queueId = 2 ** 31;
        },
      ],
      [
        'flag',
        (e) => {
          e.flag = 1.5;
        },
      ],
      [
        'queueOffset',
        (e) => {
          e.queueOffset = 2n ** 63n;
        },
      ],
      [
        'port',
        (e) => {
          e.storeHost = { address: '1.2.3.4', port: 65536 };
        },
      ],
      [
        'address',
        (e) => {
          e.bornHost = { address: 'example.com', port: 1 };
        },
      ],
      [
        'properties',
        (e) => {
          e.properties.set('big', 'x'.repeat(40000));
        },
      ],
    ];
    for (const [name, mutate] of cases) {
      const ext = sample();
      mutate(ext);
      assert.throws(() => encodeMessage(ext), { name: 'ValidationError' }, name);
    }
  });
});
