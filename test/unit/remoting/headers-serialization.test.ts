import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/java-hash-map.js';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import { type RemotingCommand, SerializeType } from '../../../src/remoting/protocol/command.js';
import { decodeJsonHeader, encodeJsonHeader } from '../../../src/remoting/protocol/json-header.js';
import {
  decodeRocketMQHeader,
  encodeRocketMQHeader,
} from '../../../src/remoting/protocol/rocketmq-header.js';

describe('Java hashing', () => {
  test('String.hashCode over UTF-16 code units with int32 wrap', () => {
    assert.equal(javaStringHashCode(''), 0);
    assert.equal(javaStringHashCode('TagA'), 2598919);
    assert.equal(javaStringHashCode('Aa'), javaStringHashCode('BB'));
    // "polygenelubricants".hashCode() is Integer.MIN_VALUE, a classic Java example.
    assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  });

  test('HashMap iterates by bucket, then insertion order', () => {
    // "a", "b", "c" hash to 97, 98, 99: buckets 1, 2, 3 of a 16-slot table.
    assert.deepEqual(javaHashMapOrder(['c', 'b', 'a']), ['a', 'b', 'c']);
    // "Aa" and "BB" collide, so they keep their insertion order.
    assert.deepEqual(javaHashMapOrder(['BB', 'Aa']), ['BB', 'Aa']);
    assert.deepEqual(javaHashMapOrder(['Aa', 'BB']), ['Aa', 'BB']);
    // "q" (113) lands in bucket 1 of 16 like "a" (97) but in bucket 17 of 32 once the map has grown.
    assert.deepEqual(javaHashMapOrder(['q', 'a']), ['q', 'a']);
    const thirteen = ['q', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    assert.equal(javaHashMapOrder(thirteen).at(-1), 'q');
  });
});

describe('JSON header', () => {
  test('writes bean fields alphabetically and leaves nulls out', () => {
    const cmd: RemotingCommand = {
      code: 105,
      language: 'JAVA',
      version: 409,
      opaque: 3,
      flag: 0,
      extFields: { topic: 'T' },
      serializeType: SerializeType.JSON,
    };
    assert.equal(
      encodeJsonHeader(cmd).toString(),
      '{"code":105,"extFields":{"topic":"T"},"flag":0,"language":"JAVA","opaque":3,"serializeTypeCurrentRPC":"JSON","version":409}',
    );
  });

  test('decodes the spec example pull request', () => {
    const text =
      '{"code":11,"extFields":{"bname":"broker-a","commitOffset":"0","consumerGroup":"g","expressionType":"TAG","maxMsgNums":"32","queueId":"0","queueOffset":"0","subVersion":"1700000000000","suspendTimeoutMillis":"15000","sysFlag":"2","topic":"T"},"flag":0,"language":"JAVA","opaque":42,"serializeTypeCurrentRPC":"JSON","version":409}';
    const cmd = decodeJsonHeader(Buffer.from(text), undefined);
    assert.equal(cmd.code, 11);
    assert.equal(cmd.opaque, 42);
    assert.equal(cmd.extFields?.subVersion, '1700000000000');
    assert.equal(cmd.serializeType, SerializeType.JSON);
  });

  test('accepts numbers and booleans in extFields from lenient peers, keeps __proto__ a plain key', () => {
    const cmd = decodeJsonHeader(
      Buffer.from('{"code":1,"extFields":{"n":5,"b":true,"z":null,"__proto__":"x"}}'),
      undefined,
    );
    assert.deepEqual(Object.entries(cmd.extFields ?? {}), [
      ['n', '5'],
      ['b', 'true'],
      ['__proto__', 'x'],
    ]);
    assert.equal(Object.getPrototypeOf(cmd.extFields), Object.prototype);
  });

  for (const [name, text] of [
    ['not JSON', '{"code":'],
    ['an array', '[1,2]'],
    ['no code', '{"flag":0}'],
    ['a fractional code', '{"code":1.5}'],
    ['an int32 overflow', '{"code":1,"opaque":2147483648}'],
    ['an object extField', '{"code":1,"extFields":{"a":{}}}'],
    ['a numeric remark', '{"code":1,"remark":5}'],
  ] as const) {
    test(`rejects ${name} with a typed error`, () => {
      assert.throws(() => decodeJsonHeader(Buffer.from(text), undefined), RemotingCommandError);
    });
  }
});

describe('ROCKETMQ binary header', () => {
  // code 11 | JAVA | version 409 | opaque 42 | flag 0 | no remark | ext {topic: "T"}
  const annotated = Buffer.from(
    [
      '000b', // code int16 = 11
      '00', // language JAVA
      '0199', // version int16 = 409
      '0000002a', // opaque = 42
      '00000000', // flag
      '00000000', // remark length 0 = null
      '0000000c', // ext section length 12
      '0005', // key length 5
      '746f706963', // "topic"
      '00000001', // value length 1
      '54', // "T"
    ].join(''),
    'hex',
  );
  const cmd: RemotingCommand = {
    code: 11,
    language: 'JAVA',
    version: 409,
    opaque: 42,
    flag: 0,
    extFields: { topic: 'T' },
    serializeType: SerializeType.ROCKETMQ,
  };

  test('parse', () => assert.deepEqual(decodeRocketMQHeader(annotated, undefined), cmd));
  test('generate', () => assert.deepEqual(encodeRocketMQHeader(cmd), annotated));
  test('mirror with remark and several entries', () => {
    const full: RemotingCommand = {
      ...cmd,
      remark: 'ünïcode',
      extFields: { a: '1', b: 'x\u0001y', Aa: 'p', BB: 'q' },
    };
    assert.deepEqual(decodeRocketMQHeader(encodeRocketMQHeader(full), undefined), full);
  });

  test('an empty remark is absent, an empty value keeps its entry (Java: null)', () => {
    const out = decodeRocketMQHeader(
      encodeRocketMQHeader({ ...cmd, remark: '', extFields: { e: '', k: 'v' } }),
      undefined,
    );
    assert.equal(out.remark, undefined);
    assert.deepEqual(out.extFields, { e: '', k: 'v' });
  });

  test('an unknown language byte round-trips as its decimal text', () => {
    const bytes = Buffer.from(annotated);
    bytes.writeUInt8(99, 2);
    const out = decodeRocketMQHeader(bytes, undefined);
    assert.equal(out.language, '99');
    assert.deepEqual(encodeRocketMQHeader(out), bytes);
  });

  test('every truncation gives a typed error', () => {
    for (let len = 0; len < annotated.length; len++) {
      assert.throws(
        () => decodeRocketMQHeader(annotated.subarray(0, len), undefined),
        RemotingCommandError,
        `len ${len}`,
      );
    }
  });

  test('lengths pointing past the header are refused', () => {
    const bad = Buffer.from(annotated);
    bad.writeInt32BE(1 << 30, 13);
    assert.throws(() => decodeRocketMQHeader(bad, undefined), /remark length/);
    const badValue = Buffer.from(annotated);
    badValue.writeInt32BE(-1, 28);
    assert.throws(() => decodeRocketMQHeader(badValue, undefined), /value length -1/);
  });
});
