/**
 * REGISTER_BROKER bodies against the bytes the official 4.9.8 classes wrote: RegisterBrokerBody (JSON and
 * compressed), TopicConfigSerializeWrapper, TopicConfig (bean and text form) and DataVersion.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync, inflateSync } from 'node:zlib';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  dataVersionEquals,
  decodeDataVersion,
  encodeDataVersion,
} from '../../../src/common/protocol/data-version.js';
import {
  decodeRegisterBrokerBody,
  decodeTopicConfigSerializeWrapper,
  encodeRegisterBrokerBody,
  encodeTopicConfigSerializeWrapper,
  type RegisterBrokerBody,
} from '../../../src/common/protocol/register-broker-body.js';
import {
  createTopicConfig,
  decodeTopicConfigText,
  encodeTopicConfigText,
  type TopicConfig,
  topicConfigEquals,
} from '../../../src/common/protocol/topic-config.js';
import { goldenFile } from '../../golden-fixtures.js';

const NOW = { timestamp: 42n };

const TOPIC_TEST: TopicConfig = {
  topicName: 'TopicTest',
  readQueueNums: 4,
  writeQueueNums: 4,
  perm: 6,
  topicFilterType: 'SINGLE_TAG',
  topicSysFlag: 0,
  order: false,
};
const TOPIC_ORDER: TopicConfig = {
  topicName: 'TopicOrder',
  readQueueNums: 8,
  writeQueueNums: 8,
  perm: 6,
  topicFilterType: 'MULTI_TAG',
  topicSysFlag: 1,
  order: true,
};
const GOLDEN_VERSION = { counter: 7n, timestamp: 1_700_000_000_789n };

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function section(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([int32(bytes.length), bytes]);
}

describe('RegisterBrokerBody, uncompressed (golden)', () => {
  const bytes = goldenFile('bodies/register-broker-body.json');

  test('decodes every field and re-encodes byte for byte', () => {
    const body = decodeRegisterBrokerBody(bytes, false, NOW);
    assert.deepEqual(body.filterServerList, ['127.0.0.1:30000']);
    const w = body.topicConfigSerializeWrapper;
    assert.deepEqual(w.dataVersion, GOLDEN_VERSION);
    assert.deepEqual(
      [...w.topicConfigTable],
      [
        ['TopicTest', TOPIC_TEST],
        ['TopicOrder', TOPIC_ORDER],
      ],
    );
    assert.equal(encodeRegisterBrokerBody(body).toString('hex'), bytes.toString('hex'));
  });

  test('two bodies back to back and every cut are rejected', () => {
    const next = goldenFile('bodies/topic-config-wrapper.json');
    assert.throws(
      () => decodeRegisterBrokerBody(Buffer.concat([bytes, next]), false, NOW),
      RemotingCommandError,
    );
    for (const n of [0, 1, 100, bytes.length - 1]) {
      assert.throws(() => decodeRegisterBrokerBody(bytes.subarray(0, n), false, NOW), RemotingCommandError);
    }
  });

  test('absent parts take Java initial values', () => {
    const body = decodeRegisterBrokerBody(Buffer.from('{}'), false, NOW);
    assert.deepEqual(body, {
      topicConfigSerializeWrapper: {
        topicConfigTable: new Map(),
        dataVersion: { timestamp: 42n, counter: 0n },
      },
      filterServerList: [],
    });
    const sparse = decodeRegisterBrokerBody(
      Buffer.from('{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T"}}}}'),
      false,
      NOW,
    );
    assert.deepEqual(sparse.topicConfigSerializeWrapper.topicConfigTable.get('T'), createTopicConfig('T'));
    assert.deepEqual(sparse.topicConfigSerializeWrapper.dataVersion, { timestamp: 42n, counter: 0n });
  });

  test('malformed fields are named', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"filterServerList":[1]}', /filterServerList\[0\]: not a string/],
      ['{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{}}}}', /topicName: missing/],
      [
        '{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T","perm":"6"}}}}',
        /perm: not an int/,
      ],
      [
        '{"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T","topicFilterType":"X"}}}}',
        /unknown TopicFilterType X/,
      ],
      ['{"topicConfigSerializeWrapper":{"dataVersion":{"counter":1.5}}}', /counter: not a long/],
      ['[]', /not an object/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => decodeRegisterBrokerBody(Buffer.from(text), false, NOW),
        (e: unknown) => {
          assert.ok(e instanceof RemotingCommandError, text);
          assert.match(e.message, message, text);
          return true;
        },
      );
    }
    assert.throws(() => decodeRegisterBrokerBody(undefined, false, NOW), /the body is empty/);
  });
});

describe('RegisterBrokerBody, compressed (golden)', () => {
  const bytes = goldenFile('bodies/register-broker-body.compressed.bin');

  test('decodes the official bytes; the text form drops topicSysFlag and order', () => {
    const body = decodeRegisterBrokerBody(bytes, true, NOW);
    assert.deepEqual(body.filterServerList, ['127.0.0.1:30000']);
    assert.deepEqual(body.topicConfigSerializeWrapper.dataVersion, GOLDEN_VERSION);
    assert.deepEqual(
      [...body.topicConfigSerializeWrapper.topicConfigTable.values()],
      [TOPIC_TEST, { ...TOPIC_ORDER, topicSysFlag: 0, order: false }],
    );
  });

  test('our compressed encoding inflates to exactly the bytes Java compressed', () => {
    const body = decodeRegisterBrokerBody(bytes, true, NOW);
    const ours = encodeRegisterBrokerBody(body, true);
    assert.equal(inflateSync(ours).toString('hex'), inflateSync(bytes).toString('hex'));
    assert.deepEqual(decodeRegisterBrokerBody(ours, true, NOW), body);
  });

  const rebuild = (parts: Buffer[]) => deflateSync(Buffer.concat(parts));
  const dv = section('{"counter":1,"timestamp":2}');
  const filter = section('[]');

  test('bad sections are refused with the part named', () => {
    const cases: Array<[string, Buffer, RegExp]> = [
      ['not zlib', Buffer.from('nope'), /corrupt zlib data/],
      ['truncated zlib', bytes.subarray(0, bytes.length - 5), /corrupt zlib data|end of compressed data/],
      ['no topic count', rebuild([dv]), /topic count: end of compressed data/],
      ['length beyond the data', rebuild([int32(1000), Buffer.from('{}')]), /dataVersion: length 1000/],
      ['negative length', rebuild([int32(-1)]), /dataVersion: length -1/],
      ['bad data version', rebuild([section('x'), int32(0), filter]), /DataVersion/],
      [
        'four tokens',
        rebuild([dv, int32(1), section('T 1 1 6'), filter]),
        /expected 5 space-separated tokens, got 4/,
      ],
      [
        'bad int',
        rebuild([dv, int32(1), section('T 1 x 6 SINGLE_TAG'), filter]),
        /writeQueueNums is not an int/,
      ],
      [
        'bad filter type',
        rebuild([dv, int32(1), section('T 1 1 6 NONE'), filter]),
        /unknown TopicFilterType/,
      ],
      ['missing filter list', rebuild([dv, int32(0)]), /filter server list length: end of compressed data/],
      ['empty body', Buffer.alloc(0), /the body is empty/],
    ];
    for (const [name, data, message] of cases) {
      assert.throws(
        () => decodeRegisterBrokerBody(data, true, NOW),
        (e: unknown) => {
          assert.ok(e instanceof RemotingCommandError, name);
          assert.match(e.message, message, name);
          return true;
        },
      );
    }
  });

  test('a negative topic count reads no topics (Java loop); a bad filter list reads as empty', () => {
    const body = decodeRegisterBrokerBody(rebuild([dv, int32(-3), section('not json')]), true, NOW);
    assert.equal(body.topicConfigSerializeWrapper.topicConfigTable.size, 0);
    assert.deepEqual(body.filterServerList, []);
    const numbers = decodeRegisterBrokerBody(rebuild([dv, int32(0), section('[1,2]')]), true, NOW);
    assert.deepEqual(numbers.filterServerList, []);
  });

  test('inflation is bounded', () => {
    const bomb = deflateSync(Buffer.alloc(1 << 20));
    assert.throws(
      () => decodeRegisterBrokerBody(bomb, true, { ...NOW, maxInflatedSize: 1024 }),
      /inflates beyond 1024 bytes/,
    );
  });

  test('round trip with many topics', () => {
    const configs = Array.from({ length: 300 }, (_, i) =>
      createTopicConfig(`T${i}`, { readQueueNums: i % 16, writeQueueNums: 1 + (i % 5), perm: 2 + (i % 5) }),
    );
    const body: RegisterBrokerBody = {
      topicConfigSerializeWrapper: {
        topicConfigTable: new Map(configs.map((c) => [c.topicName, c])),
        dataVersion: { counter: 9n, timestamp: 9n },
      },
      filterServerList: ['a:1', 'b:2'],
    };
    assert.deepEqual(decodeRegisterBrokerBody(encodeRegisterBrokerBody(body, true), true, NOW), body);
    assert.deepEqual(decodeRegisterBrokerBody(encodeRegisterBrokerBody(body, false), false, NOW), body);
  });
});

describe('TopicConfigSerializeWrapper (golden)', () => {
  const bytes = goldenFile('bodies/topic-config-wrapper.json');

  test('decodes and re-encodes byte for byte', () => {
    const w = decodeTopicConfigSerializeWrapper(bytes, NOW);
    assert.deepEqual(w.dataVersion, GOLDEN_VERSION);
    assert.deepEqual([...w.topicConfigTable.values()], [TOPIC_TEST, TOPIC_ORDER]);
    assert.equal(encodeTopicConfigSerializeWrapper(w).toString('hex'), bytes.toString('hex'));
  });

  test('pretty form (topics.json) reads back the same', () => {
    const w = decodeTopicConfigSerializeWrapper(bytes, NOW);
    const pretty = encodeTopicConfigSerializeWrapper(w, { pretty: true });
    assert.match(pretty.toString('utf8'), /^\{\n\t"dataVersion":\{/);
    assert.deepEqual(decodeTopicConfigSerializeWrapper(pretty, NOW), w);
  });
});

describe('TopicConfig text form and DataVersion', () => {
  test('text form as TopicConfig.encode writes and decode reads it', () => {
    assert.equal(encodeTopicConfigText(TOPIC_ORDER), 'TopicOrder 8 8 6 MULTI_TAG');
    assert.deepEqual(decodeTopicConfigText('TopicOrder 8 8 6 MULTI_TAG'), {
      ...TOPIC_ORDER,
      topicSysFlag: 0,
      order: false,
    });
    // Java's split drops trailing empty tokens only.
    assert.equal(decodeTopicConfigText('T 1 2 6 SINGLE_TAG  ').writeQueueNums, 2);
    assert.throws(() => decodeTopicConfigText(' T 1 2 6 SINGLE_TAG'), /got 6/);
    assert.throws(() => decodeTopicConfigText('T 1 2 6 SINGLE_TAG x'), /got 6/);
    assert.throws(() => decodeTopicConfigText('T 1 2 99999999999 SINGLE_TAG'), /perm is not an int/);
    assert.throws(() => decodeTopicConfigText(''), /got 0/);
  });

  test('equality compares every field', () => {
    assert.ok(topicConfigEquals(TOPIC_TEST, { ...TOPIC_TEST }));
    assert.ok(!topicConfigEquals(TOPIC_TEST, { ...TOPIC_TEST, order: true }));
    assert.ok(!topicConfigEquals(TOPIC_TEST, { ...TOPIC_TEST, topicSysFlag: 1 }));
  });

  test('DataVersion bytes, defaults and equality', () => {
    assert.equal(encodeDataVersion(GOLDEN_VERSION).toString(), '{"counter":7,"timestamp":1700000000789}');
    assert.deepEqual(decodeDataVersion(Buffer.from('{"timestamp":5}'), NOW), { timestamp: 5n, counter: 0n });
    assert.deepEqual(decodeDataVersion(Buffer.from('{"counter":3,"stateVersion":1}'), NOW), {
      timestamp: 42n,
      counter: 3n,
    });
    assert.deepEqual(decodeDataVersion(Buffer.from('{"counter":"9007199254740993","timestamp":1}'), NOW), {
      timestamp: 1n,
      counter: 9007199254740993n,
    });
    assert.ok(dataVersionEquals({ counter: 1n, timestamp: 2n }, { counter: 1n, timestamp: 2n }));
    assert.ok(!dataVersionEquals({ counter: 1n, timestamp: 2n }, { counter: 1n, timestamp: 3n }));
    assert.throws(() => decodeDataVersion(undefined, NOW), /DataVersion: the body is empty/);
    assert.throws(() => decodeDataVersion(Buffer.from('{"counter":true}'), NOW), /counter: not a long/);
  });
});
