import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  type FastjsonRecord,
  FastjsonSyntaxError,
  type FastjsonValue,
  FjMap,
  parseFastjson,
} from '../../../src/common/fastjson/index.js';

function rec(v: FastjsonValue): FastjsonRecord {
  assert.ok(
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof FjMap),
    'expected a record',
  );
  return v as FastjsonRecord;
}

function syntaxError(text: string | Buffer, position?: number): FastjsonSyntaxError {
  let caught: unknown;
  try {
    parseFastjson(text);
  } catch (err) {
    caught = err;
  }
  assert.ok(
    caught instanceof FastjsonSyntaxError,
    `expected a FastjsonSyntaxError for ${String(text).slice(0, 60)}`,
  );
  assert.ok(caught instanceof RemotingCommandError);
  assert.equal(caught.what, 'json body');
  if (position !== undefined) assert.equal(caught.position, position, caught.message);
  return caught;
}

describe('parseFastjson: spec §4 bodies', () => {
  test('route with bare Long keys (§4.2, bare-key form)', () => {
    const text =
      '{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a",' +
      '"cluster":"DefaultCluster"}],"filterServerTable":{},"orderTopicConf":"broker-a:4;broker-b:4",' +
      '"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';
    assert.deepEqual(parseFastjson(text), {
      brokerDatas: [
        {
          brokerAddrs: { '0': '10.0.0.1:10911', '1': '10.0.0.2:10911' },
          brokerName: 'broker-a',
          cluster: 'DefaultCluster',
        },
      ],
      filterServerTable: {},
      orderTopicConf: 'broker-a:4;broker-b:4',
      queueDatas: [{ brokerName: 'broker-a', perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 }],
    });
  });

  test('bare and quoted number keys read the same (standard-form route)', () => {
    const bare = parseFastjson('{"brokerAddrs":{0:"a",1:"b"}}');
    const standard = parseFastjson('{"brokerAddrs":{"0":"a","1":"b"}}');
    assert.deepEqual(bare, standard);
  });

  test('ClusterInfo (§4.3)', () => {
    const text =
      '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"ip:port"},"brokerName":"broker-a",' +
      '"cluster":"DefaultCluster"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}';
    const v = rec(parseFastjson(text));
    const broker = rec(rec(v.brokerAddrTable!)['broker-a']!);
    assert.equal(rec(broker.brokerAddrs!)['0'], 'ip:port');
    assert.deepEqual(rec(v.clusterAddrTable!).DefaultCluster, ['broker-a']);
  });

  test('ConsumeStats with MessageQueue keys (§4.7) becomes an FjMap with object keys', () => {
    const text =
      '{"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:' +
      '{"brokerOffset":120,"consumerOffset":118,"lastTimestamp":1700000000000}}}';
    const v = rec(parseFastjson(text));
    assert.equal(v.consumeTps, 0);
    const table = v.offsetTable;
    assert.ok(table instanceof FjMap);
    assert.equal(table.size, 1);
    assert.deepEqual(table.entries[0], [
      { brokerName: 'b', queueId: 0, topic: 'T' },
      { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 },
    ]);
    // Lookup by an equal key (field order does not matter).
    assert.deepEqual(table.get({ topic: 'T', queueId: 0, brokerName: 'b' }), {
      brokerOffset: 120,
      consumerOffset: 118,
      lastTimestamp: 1700000000000,
    });
    assert.equal(table.get({ topic: 'T', queueId: 1, brokerName: 'b' }), undefined);
  });

  test('TopicStatsTable and ResetOffsetBody (§4.7, §4.12)', () => {
    const stats = rec(
      parseFastjson(
        '{"offsetTable":{{"brokerName":"b","queueId":1,"topic":"T"}:{"lastUpdateTimestamp":1700000000001,' +
          '"maxOffset":9223372036854775807,"minOffset":0},{"brokerName":"b","queueId":0,"topic":"T"}:' +
          '{"lastUpdateTimestamp":0,"maxOffset":5,"minOffset":0}}}',
      ),
    );
    const table = stats.offsetTable;
    assert.ok(table instanceof FjMap);
    assert.equal(
      rec(table.get({ brokerName: 'b', queueId: 1, topic: 'T' })!).maxOffset,
      9223372036854775807n,
    );
    const reset = rec(parseFastjson('{"offsetTable":{{"brokerName":"b","queueId":3,"topic":"T"}:-1}}'));
    assert.ok(reset.offsetTable instanceof FjMap);
    assert.equal(reset.offsetTable.entries[0]![1], -1);
  });

  test('consumerOffset.json and delayOffset.json (§4.9)', () => {
    assert.deepEqual(parseFastjson('{"offsetTable":{"T@g":{0:118,1:57}}}'), {
      offsetTable: { 'T@g': { '0': 118, '1': 57 } },
    });
    assert.deepEqual(parseFastjson('{"offsetTable":{1:0,3:12}}'), { offsetTable: { '1': 0, '3': 12 } });
    // The broker writes them with PrettyFormat: tabs, newlines, and no newline before a bare key.
    assert.deepEqual(parseFastjson('{\n\t"offsetTable":{\n\t\t"T@g":{0:118,1:57\n\t\t}\n\t}\n}'), {
      offsetTable: { 'T@g': { '0': 118, '1': 57 } },
    });
  });

  test('heartbeat (§4.1) with negative int32 tag hashes and a long subVersion', () => {
    const text =
      '{"clientID":"10.0.0.5@12345#987654321","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",' +
      '"consumeType":"CONSUME_PASSIVELY","groupName":"g","messageModel":"CLUSTERING","subscriptionDataSet":[' +
      '{"classFilterMode":false,"codeSet":[2598919,-1234],"expressionType":"TAG","subString":"TagA || TagB",' +
      '"subVersion":1700000000000,"tagsSet":["TagA","TagB"],"topic":"T"}],"unitMode":false}],' +
      '"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"},{"groupName":"pg"}]}';
    const v = rec(parseFastjson(text));
    const consumer = rec((v.consumerDataSet as FastjsonValue[])[0]!);
    const sub = rec((consumer.subscriptionDataSet as FastjsonValue[])[0]!);
    assert.deepEqual(sub.codeSet, [2598919, -1234]);
    assert.equal(sub.subVersion, 1700000000000);
    assert.equal(sub.classFilterMode, false);
    assert.equal(consumer.unitMode, false);
    assert.equal((v.producerDataSet as FastjsonValue[]).length, 2);
  });
});

describe('parseFastjson: numbers', () => {
  test('integers stay exact: number while safe, bigint beyond 2^53-1', () => {
    assert.equal(parseFastjson('9007199254740991'), 9007199254740991);
    assert.equal(parseFastjson('9007199254740992'), 9007199254740992n);
    assert.equal(parseFastjson('-9007199254740991'), -9007199254740991);
    assert.equal(parseFastjson('-9007199254740992'), -9007199254740992n);
    assert.equal(parseFastjson('9223372036854775807'), 9223372036854775807n);
    assert.equal(parseFastjson('-9223372036854775808'), -9223372036854775808n);
    // Beyond a Java long (fastjson gives a BigInteger): still exact.
    assert.equal(parseFastjson('123456789012345678901234567890'), 123456789012345678901234567890n);
    // 16 digits but safe: the BigInt path must give a number back.
    assert.equal(parseFastjson('1000000000000000'), 1000000000000000);
    assert.equal(parseFastjson('0000000000000000001'), 1);
  });

  test("integers: 'bigint' gives every integer as a bigint", () => {
    assert.deepEqual(parseFastjson('{"a":1,"b":[-2,1.5]}', { integers: 'bigint' }), { a: 1n, b: [-2n, 1.5] });
    assert.deepEqual(parseFastjson('{7:1}', { integers: 'bigint' }), { '7': 1n });
  });

  test('negative numbers, zero, decimals and exponents', () => {
    assert.deepEqual(
      parseFastjson('[-1,0,-0,1.5,-1.5,1e3,1E-3,2.5e+2,-0.0,0.0]'),
      [-1, 0, 0, 1.5, -1.5, 1000, 0.001, 250, -0, 0],
    );
    assert.ok(Object.is(parseFastjson('-0'), 0), 'integer -0 is 0');
    assert.ok(Object.is(parseFastjson('-0.0'), -0), 'double -0.0 stays -0');
    assert.equal(parseFastjson('1.0E7'), 1e7);
    assert.equal(parseFastjson('4.9E-324'), 5e-324);
  });

  test('number keys are stored as canonical decimal strings', () => {
    assert.deepEqual(parseFastjson('{-1:"a",007:"b",1.50:"c",9223372036854775807:"d"}'), {
      '-1': 'a',
      '7': 'b',
      '1.5': 'c',
      '9223372036854775807': 'd',
    });
  });

  test('malformed numbers', () => {
    syntaxError('-', 1);
    syntaxError('[1.]', 3);
    syntaxError('[1e]', 3);
    syntaxError('[1e+]', 4);
    syntaxError('[.5]', 1);
    syntaxError('1e400', 0);
    syntaxError(`${'1'.repeat(1001)}`, 0);
    syntaxError('[12L]', 3);
  });
});

describe('parseFastjson: fastjson leniency', () => {
  test('bare identifier, boolean-looking and single-quoted keys', () => {
    assert.deepEqual(parseFastjson("{id:1,$x:2,_y3:3,true:4,null:5,'q':'v','it\\'s':6}"), {
      id: 1,
      $x: 2,
      _y3: 3,
      true: 4,
      null: 5,
      q: 'v',
      "it's": 6,
    });
    assert.deepEqual(parseFastjson('{ключ:1}'), { ключ: 1 });
  });

  test('object and array keys, nested', () => {
    const v = parseFastjson('{[1,2]:"arr",{{"a":1}:2}:"nested",0:"zero","s":"str"}');
    assert.ok(v instanceof FjMap);
    assert.deepEqual(v.keys()[0], [1, 2]);
    const nestedKey = v.keys()[1];
    assert.ok(nestedKey instanceof FjMap);
    assert.deepEqual(nestedKey.entries, [[{ a: 1 }, 2]]);
    // In an FjMap every key keeps its type.
    assert.equal(v.keys()[2], 0);
    assert.equal(v.keys()[3], 's');
    assert.equal(v.get(0), 'zero');
    assert.equal(v.get([1, 2]), 'arr');
  });

  test('FjMap keeps duplicate keys in order and get() returns the last, like Java put', () => {
    const v = parseFastjson('{{"k":1}:"first",{"k":1}:"second"}');
    assert.ok(v instanceof FjMap);
    assert.equal(v.size, 2);
    assert.equal(v.get({ k: 1 }), 'second');
    v.set({ k: 1 }, 'third');
    assert.deepEqual(v.values(), ['third', 'second']);
  });

  test('duplicate record keys: the last wins', () => {
    assert.deepEqual(parseFastjson('{"a":1,"a":2,0:3,"0":4}'), { a: 2, '0': 4 });
  });

  test('arbitrary commas, comments, fastjson whitespace, BOM', () => {
    assert.deepEqual(parseFastjson('{,,"a":1,,"b":[,1,,2,],}'), { a: 1, b: [1, 2] });
    assert.deepEqual(parseFastjson('\ufeff/* c */{"a"/*x*/://y\n1}\b\f'), { a: 1 });
    syntaxError('{"a":1}/', 8);
    syntaxError('/* never closed', 0);
  });

  test('single-quoted values and extra escapes', () => {
    assert.equal(parseFastjson("'it\\'s \"x\"'"), 'it\'s "x"');
    assert.equal(parseFastjson('"\\0\\1\\7\\v\\F\\x41\\x7e\\/"'), '\u0000\u0001\u0007\u000b\u000cA~/');
  });

  test('__proto__ is an ordinary field, not a prototype change', () => {
    const v = rec(parseFastjson('{"__proto__":{"polluted":true},"a":1}'));
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ['__proto__', 'a']);
    assert.deepEqual(Object.getOwnPropertyDescriptor(v, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('parseFastjson: strings and unicode', () => {
  test('standard escapes round to the right code units', () => {
    assert.equal(parseFastjson('"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"'), 'a"b\\c/d\b\f\n\r\t');
    assert.equal(parseFastjson('"\\u0001\\u001F\\u007f\\u2028\\u00e9\\u00E9"'), '\u0001\u001f\u007f\u2028éé');
  });

  test('surrogate pairs, raw and escaped, and lone surrogates', () => {
    assert.equal(parseFastjson('"😀"'), '\ud83d\ude00');
    assert.equal(parseFastjson('"\\uD83D\\uDE00"'), '😀');
    assert.equal(parseFastjson('"\\ud83d"'), '\ud83d');
    assert.equal(parseFastjson('"x\ud800y"'), 'x\ud800y');
  });

  test('Buffer input is decoded as UTF-8', () => {
    const buf = Buffer.from('{"t":"主题😀","n":1}', 'utf8');
    assert.deepEqual(parseFastjson(buf), { t: '主题😀', n: 1 });
    // Invalid UTF-8 becomes U+FFFD, as Java's new String(bytes, UTF_8) does.
    assert.equal(parseFastjson(Buffer.from([0x22, 0xff, 0x22])), '\ufffd');
  });

  test('raw control characters inside strings are accepted (fastjson does)', () => {
    assert.equal(parseFastjson('"a\u0001\nb"'), 'a\u0001\nb');
  });

  test('bad escapes', () => {
    syntaxError('"\\q"', 1);
    syntaxError('"\\u12"', 1);
    syntaxError('"\\u12G4"', 1);
    syntaxError('"\\x4"', 1);
    syntaxError('"abc\\', 0);
  });
});

describe('parseFastjson: errors', () => {
  test('every error is a typed RemotingCommandError naming the position', () => {
    const e = syntaxError('{"a":1 "b":2}', 7);
    assert.match(e.message, /^json body: expected ',' or '}', found '"' at offset 7$/);
    syntaxError('', 0);
    syntaxError('   ', 3);
    syntaxError('{"a"}', 4);
    syntaxError('{"a":}', 5);
    syntaxError('[1 2]', 3);
    syntaxError('{"a":1]', 6);
    syntaxError('[1}', 2);
    syntaxError('tru', 0);
    syntaxError('nul', 0);
    syntaxError('{a-b:1}', 2);
    syntaxError('{"a":1}}', 7);
    syntaxError('undefined', 0);
    syntaxError('"unterminated', 0);
  });

  test('the `what` option names the structure', () => {
    assert.throws(
      () => parseFastjson('{', { what: 'consumerOffset.json' }),
      (e: unknown) => e instanceof RemotingCommandError && e.what === 'consumerOffset.json',
    );
  });

  test('two bodies back to back are rejected at the second', () => {
    const one = '{"offsetTable":{"T@g":{0:118}}}';
    syntaxError(one + one, one.length);
    assert.deepEqual(parseFastjson(`${one}\n`), parseFastjson(one));
  });

  test('nesting is limited (512 by default) without overflowing the stack', () => {
    let v = parseFastjson(`${'['.repeat(512)}${']'.repeat(512)}`);
    for (let depth = 1; depth < 512; depth++) v = (v as FastjsonValue[])[0]!;
    assert.deepEqual(v, []);
    const e = syntaxError(`${'['.repeat(513)}${']'.repeat(513)}`, 512);
    assert.match(e.message, /nesting deeper than 512/);
    syntaxError('['.repeat(1_000_000), 512);
    syntaxError('{"a":'.repeat(100_000), 5 * 512);
    // Object keys nest too.
    syntaxError('{'.repeat(100_000), 512);
    assert.throws(() => parseFastjson('[[[1]]]', { maxDepth: 2 }), FastjsonSyntaxError);
    assert.deepEqual(parseFastjson('[[1]]', { maxDepth: 2 }), [[1]]);
  });

  test('every proper prefix of a body is a typed error', () => {
    const samples = [
      '{"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":120,' +
        '"consumerOffset":118,"lastTimestamp":1700000000000}}}',
      '{\n\t"offsetTable":{\n\t\t\'T@g\':{0:118,-1:57\n\t\t}\n\t},"s":"\\u00e9\\"x",/*c*/"n":[null,true,false,-1.5e3]\n}',
    ];
    for (const sample of samples) {
      assert.ok(parseFastjson(sample) !== null);
      for (let len = 0; len < sample.length; len++) {
        const e = syntaxError(sample.slice(0, len));
        assert.ok(e.position <= len, `position ${e.position} beyond prefix ${len}`);
      }
    }
  });
});
