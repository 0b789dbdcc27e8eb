/**
 * Expected texts marked "recorded" were produced by fastjson 1.2.69_noneautotype (the build RocketMQ
 * 4.9.8 ships) on OpenJDK 17, serializing Java beans/maps of the same shape; the rest follow from the
 * rules in src/common/fastjson/stringify.ts and escape.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import {
  type FjEmittable,
  FjMap,
  fjEquals,
  formatJavaDouble,
  javaDouble,
  javaSet,
  parseFastjson,
  quoteFastjsonString,
  stringifyFastjson,
} from '../../../src/common/fastjson/index.js';

const mq = (topic: string, brokerName: string, queueId: number) => ({ topic, brokerName, queueId });

describe('stringifyFastjson: default form (JSON.toJSONString)', () => {
  test('bean fields sorted by UTF-16 code units, nulls left out, no whitespace', () => {
    assert.equal(
      stringifyFastjson({ topic: 'T', brokerName: 'b', queueId: 0, extra: null, gone: undefined }),
      '{"brokerName":"b","queueId":0,"topic":"T"}',
    );
    // 'Z' (0x5A) < 'a' (0x61) < 'é' (0xE9) < U+D83D (high surrogate) < U+FFFF
    assert.equal(
      stringifyFastjson({ '\uffff': 6, b: 1, '😀': 5, a: 2, é: 3, Z: 4 }),
      '{"Z":4,"a":2,"b":1,"é":3,"😀":5,"\uffff":6}',
    );
    assert.equal(stringifyFastjson({}), '{}');
    assert.equal(stringifyFastjson({ a: null }), '{}');
  });

  test('ConsumeStats with a MessageQueue key and a double (recorded, spec §4.7)', () => {
    const stats = {
      consumeTps: javaDouble(0),
      offsetTable: new FjMap([
        [mq('T', 'b', 0), { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 }],
      ]),
    };
    const text =
      '{"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:' +
      '{"brokerOffset":120,"consumerOffset":118,"lastTimestamp":1700000000000}}}';
    assert.equal(stringifyFastjson(stats), text);
    // Mirror: parsing gives back the same keys and values.
    assert.ok(fjEquals(parseFastjson(text), { ...stats, consumeTps: 0 }));
  });

  test('bare non-string map keys: Long, Integer, negative, boolean, array, map (recorded)', () => {
    assert.equal(
      stringifyFastjson({
        brokerAddrs: new FjMap<number | bigint, string>([
          [0, '10.0.0.1:10911'],
          [1n, '10.0.0.2:10911'],
        ]),
      }),
      '{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"}}',
    );
    assert.equal(
      stringifyFastjson({
        offsetTable: new FjMap([
          [1, 0],
          [3, 12],
        ]),
      }),
      '{"offsetTable":{1:0,3:12}}',
    );
    const keys = new FjMap<FjEmittable, FjEmittable>([
      [[1, 2], 'arr'],
      [
        new FjMap<string, FjEmittable>([
          ['z', 'q"/é'],
          ['a', 1],
        ]),
        'map',
      ],
      [true, 1],
      [-5, 2],
      [12345678901234, 3],
    ]);
    assert.equal(
      stringifyFastjson(keys),
      '{[1,2]:"arr",{"z":"q\\"/é","a":1}:"map",true:1,-5:2,12345678901234:3}',
    );
  });

  test('map entries keep their order; null values are left out; lists keep nulls (recorded)', () => {
    const co = {
      offsetTable: new FjMap([
        [
          'T@g',
          new FjMap([
            [0, 118],
            [1, 57],
          ]),
        ],
        ['E@g', new FjMap()],
      ]),
    };
    assert.equal(stringifyFastjson(co), '{"offsetTable":{"T@g":{0:118,1:57},"E@g":{}}}');
    assert.equal(
      stringifyFastjson(
        new FjMap([
          ['b', 1],
          ['a', null],
          ['c', undefined],
          ['a2', 2],
        ]),
      ),
      '{"b":1,"a2":2}',
    );
    assert.equal(stringifyFastjson(['n1', null, undefined]), '["n1",null,null]');
    assert.equal(stringifyFastjson(FjMap.fromRecord({ z: 1, y: 2 }, ['y', 'z', 'missing'])), '{"y":2,"z":1}');
  });

  test('longs and bigints are bare integers; no precision loss', () => {
    assert.equal(stringifyFastjson(9223372036854775807n), '9223372036854775807');
    assert.equal(stringifyFastjson(-9223372036854775808n), '-9223372036854775808');
    assert.equal(
      stringifyFastjson({ maxOffset: 9007199254740993n, min: -1 }),
      '{"maxOffset":9007199254740993,"min":-1}',
    );
    // An integral JS number beyond 2^53 is written with all its digits, not in exponent form.
    assert.equal(stringifyFastjson(2 ** 60), '1152921504606846976');
    assert.equal(stringifyFastjson(-0), '0');
  });

  test('doubles as fastjson writes them (RyuDouble, recorded)', () => {
    const cases: Array<[number, string]> = [
      [0, '0.0'],
      [-0, '-0.0'],
      [1, '1.0'],
      [0.5, '0.5'],
      [100, '100.0'],
      [1e7, '1.0E7'],
      [9999999, '9999999.0'],
      [0.001, '0.001'],
      [0.000999, '9.99E-4'],
      [0.0001, '1.0E-4'],
      [1e21, '1.0E21'],
      [1e23, '1.0E23'],
      [123456789, '1.23456789E8'],
      [10 / 3, '3.3333333333333335'],
      [0.1 + 0.2, '0.30000000000000004'],
      [5e-324, '4.9E-324'],
      [1e-323, '9.9E-324'],
      [5e-323, '4.9E-323'],
      [Number.MAX_VALUE, '1.7976931348623157E308'],
      [2.2250738585072014e-308, '2.2250738585072014E-308'],
      [1e-5, '1.0E-5'],
      [2e-5, '2.0E-5'],
      [1.5e300, '1.5E300'],
      [1234567.125, '1234567.125'],
      [-2.5, '-2.5'],
      [1e16, '1.0E16'],
      [1.2345678901234566e-7, '1.2345678901234566E-7'],
    ];
    for (const [x, text] of cases) {
      assert.equal(formatJavaDouble(x), text, String(x));
      assert.equal(stringifyFastjson(javaDouble(x)), text, String(x));
    }
    // A non-integral JS number is a Java double anyway; NaN and infinities are null (DoubleSerializer).
    assert.equal(stringifyFastjson([2.5, 1e-7, 1e300]), '[2.5,1.0E-7,1.0E300]');
    assert.equal(
      stringifyFastjson(
        new FjMap<string, FjEmittable>([
          ['x', Number.NaN],
          ['y', javaDouble(Number.POSITIVE_INFINITY)],
          ['z', javaDouble(1e7)],
        ]),
      ),
      '{"x":null,"y":null,"z":1.0E7}',
    );
  });

  test('sets are written like lists', () => {
    assert.equal(
      stringifyFastjson({ tagsSet: javaSet(['TagA', 'TagB']), codeSet: javaSet([2598919, -1234]) }),
      '{"codeSet":[2598919,-1234],"tagsSet":["TagA","TagB"]}',
    );
    assert.equal(stringifyFastjson(javaSet([])), '[]');
  });
});

describe('string escaping (SerializeWriter.writeStringWithDoubleQuote)', () => {
  test('default: examples', () => {
    assert.equal(quoteFastjsonString('', false), '""');
    assert.equal(quoteFastjsonString('a/b', false), '"a/b"');
    assert.equal(quoteFastjsonString('"\\', false), '"\\"\\\\"');
    assert.equal(
      quoteFastjsonString('\u0001\b\t\n\u000b\f\r\u000e\u001f', false),
      '"\\u0001\\b\\t\\n\\u000B\\f\\r\\u000E\\u001F"',
    );
    assert.equal(quoteFastjsonString('\u007f\u0080\u009f\u00a0é', false), '"\\u007F\\u0080\\u009F\u00a0é"');
    assert.equal(quoteFastjsonString('\u2027\u2028\u2029\u202a', false), '"\u2027\\u2028\\u2029\u202a"');
    assert.equal(quoteFastjsonString('主题😀\ud800', false), '"主题😀\ud800"');
    assert.equal(quoteFastjsonString("it's", false), '"it\'s"');
  });

  test('browser-compatible: examples', () => {
    assert.equal(quoteFastjsonString('a/b', true), '"a\\/b"');
    assert.equal(quoteFastjsonString('\u0001\b\t\n\u000b\f\r', true), '"\\u0001\\b\\t\\n\\u000B\\f\\r"');
    assert.equal(quoteFastjsonString('~\u007fé主😀', true), '"~\\u007F\\u00E9\\u4E3B\\uD83D\\uDE00"');
  });

  test('every UTF-16 code unit, both modes (classes checked against the jar)', () => {
    const named: Record<number, string> = {
      8: '\\b',
      9: '\\t',
      10: '\\n',
      12: '\\f',
      13: '\\r',
      34: '\\"',
      92: '\\\\',
    };
    const u = (c: number) => `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      let standard: string;
      const name = named[c];
      if (name !== undefined) standard = name;
      else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) standard = u(c);
      else standard = ch;
      let browser: string;
      if (name !== undefined) browser = name;
      else if (c === 0x2f) browser = '\\/';
      else if (c < 0x20 || c >= 0x7f) browser = u(c);
      else browser = ch;
      // One special alone and several around plain text take different paths in fastjson.
      if (quoteFastjsonString(ch, false) !== `"${standard}"`) assert.fail(`default U+${c.toString(16)}`);
      if (quoteFastjsonString(`a${ch}\n${ch}z`, false) !== `"a${standard}\\n${standard}z"`) {
        assert.fail(`default multi U+${c.toString(16)}`);
      }
      if (quoteFastjsonString(ch, true) !== `"${browser}"`) assert.fail(`browser U+${c.toString(16)}`);
    }
  });

  test('keys are escaped like values', () => {
    assert.equal(stringifyFastjson(new FjMap([['\u0001', 1]])), '{"\\u0001":1}');
    assert.equal(stringifyFastjson({ 'a/é': 1 }, { form: 'standard' }), '{"a\\/\\u00E9":1}');
  });
});

describe('stringifyFastjson: standard form (BrowserCompatible + MapSortField, 4.9.4+ route)', () => {
  const route = {
    orderTopicConf: null,
    brokerDatas: [
      {
        cluster: 'C',
        brokerName: 'broker-a',
        brokerAddrs: new FjMap([
          [1n, '10.0.0.2:10911'],
          [9007199254740993n, 'x/yé'],
          [0n, '10.0.0.1:10911'],
        ]),
      },
    ],
    filterServerTable: new FjMap([
      ['b', ['1', '2']],
      ['a', []],
    ]),
    names: ['n1', null],
    tags: javaSet(['t1', 't2']),
  };

  test('route (recorded)', () => {
    assert.equal(
      stringifyFastjson(route, { form: 'standard' }),
      '{"brokerDatas":[{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911","9007199254740993":"x\\/y\\u00E9"},' +
        '"brokerName":"broker-a","cluster":"C"}],"filterServerTable":{"a":[],"b":["1","2"]},"names":["n1",null],' +
        '"tags":["t1","t2"]}',
    );
  });

  test('object keys become the JSON string of their default-feature text (recorded)', () => {
    const stats = {
      consumeTps: javaDouble(0),
      offsetTable: new FjMap([
        [mq('T', 'b', 0), { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 }],
      ]),
    };
    assert.equal(
      stringifyFastjson(stats, { form: 'standard' }),
      '{"consumeTps":0.0,"offsetTable":{"{\\"brokerName\\":\\"b\\",\\"queueId\\":0,\\"topic\\":\\"T\\"}":' +
        '{"brokerOffset":120,"consumerOffset":118,"lastTimestamp":1700000000000}}}',
    );
    const keys = new FjMap<FjEmittable, FjEmittable>([
      [[1, 2], 'arr'],
      [
        new FjMap<string, FjEmittable>([
          ['z', 'q"/é'],
          ['a', 1],
        ]),
        'map',
      ],
      [true, 1],
      [-5, 2],
      [12345678901234, 3],
    ]);
    assert.equal(
      stringifyFastjson(keys, { form: 'standard', mapSortField: false }),
      '{"[1,2]":"arr","{\\"z\\":\\"q\\\\\\"\\/\\u00E9\\",\\"a\\":1}":"map","true":1,"-5":2,"12345678901234":3}',
    );
  });

  test('longs beyond 2^53-1 are quoted (SerializeWriter.writeLong), recorded', () => {
    const big = new FjMap<string, FjEmittable>([
      ['n', -9007199254740993n],
      ['s', 9007199254740991],
      ['m', -9223372036854775808n],
      ['l', 9007199254740993n],
    ]);
    assert.equal(
      stringifyFastjson(big, { form: 'standard' }),
      '{"l":"9007199254740993","m":"-9223372036854775808","n":"-9007199254740993","s":9007199254740991}',
    );
    assert.equal(
      stringifyFastjson(big, { mapSortField: true }),
      '{"l":9007199254740993,"m":-9223372036854775808,"n":-9007199254740993,"s":9007199254740991}',
    );
  });

  test('MapSortField: natural key order, merged duplicates, mixed kinds and keepOrder untouched', () => {
    const longs = new FjMap<number | bigint, number>([
      [10n, 1],
      [2, 1],
      [-1n, 1],
      [100, 1],
    ]);
    assert.equal(stringifyFastjson(longs, { mapSortField: true }), '{-1:1,2:1,10:1,100:1}');
    assert.equal(stringifyFastjson(longs, { form: 'standard' }), '{"-1":1,"2":1,"10":1,"100":1}');
    assert.equal(
      stringifyFastjson(
        new FjMap([
          ['b', 1],
          ['a', 2],
          ['b', 3],
        ]),
        { mapSortField: true },
      ),
      '{"a":2,"b":3}',
    );
    assert.equal(
      stringifyFastjson(
        new FjMap<FjEmittable, number>([
          ['b', 1],
          [0, 2],
        ]),
        { mapSortField: true },
      ),
      '{"b":1,0:2}',
    );
    assert.equal(
      stringifyFastjson(
        new FjMap(
          [
            ['b', 1],
            ['a', 2],
          ],
          { keepOrder: true },
        ),
        { mapSortField: true },
      ),
      '{"b":1,"a":2}',
    );
    assert.equal(
      stringifyFastjson(
        new FjMap([
          [true, 1],
          [false, 2],
        ]),
        { mapSortField: true },
      ),
      '{false:2,true:1}',
    );
    // Without MapSortField a map is never sorted.
    assert.equal(
      stringifyFastjson(
        new FjMap([
          ['b', 1],
          ['a', 2],
        ]),
        { form: 'standard', mapSortField: false },
      ),
      '{"b":1,"a":2}',
    );
  });
});

describe('stringifyFastjson: PrettyFormat (broker config files)', () => {
  test('consumerOffset.json: no newline before a bare key, closing brace on its own line (recorded)', () => {
    const co = {
      offsetTable: new FjMap([
        [
          'T@g',
          new FjMap([
            [0, 118],
            [1, 57],
          ]),
        ],
        ['E@g', new FjMap()],
      ]),
    };
    assert.equal(
      stringifyFastjson(co, { pretty: true }),
      '{\n\t"offsetTable":{\n\t\t"T@g":{0:118,1:57\n\t\t},\n\t\t"E@g":{}\n\t}\n}',
    );
  });

  test('lists, sets, beans and maps nested (recorded)', () => {
    const route = {
      orderTopicConf: null,
      brokerDatas: [
        {
          cluster: 'C',
          brokerName: 'broker-a',
          brokerAddrs: new FjMap([
            [0n, '10.0.0.1:10911'],
            [1n, '10.0.0.2:10911'],
            [9007199254740993n, 'x/yé'],
          ]),
        },
      ],
      filterServerTable: new FjMap([
        ['a', []],
        ['b', ['1', '2']],
      ]),
      names: ['n1', null],
      tags: javaSet(['t1', 't2']),
    };
    assert.equal(
      stringifyFastjson(route, { pretty: true }),
      '{\n\t"brokerDatas":[\n\t\t{\n\t\t\t"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911",9007199254740993:"x/yé"\n' +
        '\t\t\t},\n\t\t\t"brokerName":"broker-a",\n\t\t\t"cluster":"C"\n\t\t}\n\t],\n\t"filterServerTable":{\n' +
        '\t\t"a":[],\n\t\t"b":[\n\t\t\t"1",\n\t\t\t"2"\n\t\t]\n\t},\n\t"names":[\n\t\t"n1",\n\t\tnull\n\t],\n' +
        '\t"tags":["t1","t2"]\n}',
    );
  });

  test('object keys are pretty-printed in place (recorded)', () => {
    const stats = {
      consumeTps: javaDouble(0),
      offsetTable: new FjMap([
        [mq('T', 'b', 0), { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 }],
      ]),
    };
    assert.equal(
      stringifyFastjson(stats, { pretty: true }),
      '{\n\t"consumeTps":0.0,\n\t"offsetTable":{{\n\t\t\t"brokerName":"b",\n\t\t\t"queueId":0,\n\t\t\t"topic":"T"\n' +
        '\t\t}:{\n\t\t\t"brokerOffset":120,\n\t\t\t"consumerOffset":118,\n\t\t\t"lastTimestamp":1700000000000\n\t\t}\n\t}\n}',
    );
    const keys = new FjMap<FjEmittable, FjEmittable>([
      [[1, 2], 'arr'],
      [
        new FjMap<string, FjEmittable>([
          ['z', 'q"/é'],
          ['a', 1],
        ]),
        'map',
      ],
      [true, 1],
    ]);
    assert.equal(
      stringifyFastjson(keys, { pretty: true }),
      '{[\n\t\t1,\n\t\t2\n\t]:"arr",{\n\t\t"z":"q\\"/é",\n\t\t"a":1\n\t}:"map",true:1\n}',
    );
  });

  test('empty and all-null containers (recorded)', () => {
    // A bean whose fields are all null still gets the newlines of its getters; an empty map does not.
    assert.equal(stringifyFastjson({ a: null, b: undefined }, { pretty: true }), '{\n\t\n}');
    assert.equal(
      stringifyFastjson(
        new FjMap([
          ['a', null],
          ['b', null],
        ]),
        { pretty: true },
      ),
      '{\n}',
    );
    assert.equal(
      stringifyFastjson([new FjMap(), [], [1, 2], { a: null, b: null }], { pretty: true }),
      '[\n\t{},\n\t[],\n\t[\n\t\t1,\n\t\t2\n\t],\n\t{\n\t\t\n\t}\n]',
    );
    assert.equal(stringifyFastjson({}, { pretty: true }), '{}');
    assert.equal(stringifyFastjson('s', { pretty: true }), '"s"');
  });

  test('pretty output parses back to the same value', () => {
    const value = {
      offsetTable: new FjMap([
        [
          'T@g',
          new FjMap([
            [0, 118],
            [1, 57],
          ]),
        ],
      ]),
      list: [{ a: 1 }, [2]],
    };
    assert.ok(
      fjEquals(parseFastjson(stringifyFastjson(value, { pretty: true })), {
        offsetTable: { 'T@g': { '0': 118, '1': 57 } },
        list: [{ a: 1 }, [2]],
      }),
    );
  });
});

describe('stringifyFastjson: refused values', () => {
  test('cyclic values hit the depth limit instead of the stack', () => {
    const cyclic: FjEmittable[] = [];
    cyclic.push(cyclic);
    assert.throws(() => stringifyFastjson(cyclic), ValidationError);
    const deep: FjEmittable[] = [];
    let inner = deep;
    for (let i = 0; i < 10; i++) {
      const next: FjEmittable[] = [];
      inner.push(next);
      inner = next;
    }
    assert.throws(() => stringifyFastjson(deep, { maxDepth: 10 }), ValidationError);
    assert.equal(stringifyFastjson(deep, { maxDepth: 11 }), `${'['.repeat(11)}${']'.repeat(11)}`);
  });

  test('class instances, functions and symbols are refused', () => {
    const notJson = [new Date(0), new Map(), () => 1, Symbol('s')] as unknown as FjEmittable[];
    for (const v of notJson) assert.throws(() => stringifyFastjson(v), ValidationError);
    const nullProto = Object.assign(Object.create(null) as Record<string, FjEmittable>, { b: 1, a: 2 });
    assert.equal(stringifyFastjson(nullProto), '{"a":2,"b":1}');
  });
});
