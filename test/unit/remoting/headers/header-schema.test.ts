import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RocketMQError, ValidationError } from '../../../../src/common/errors.js';
import { javaStringHashCode } from '../../../../src/common/java-hash.js';
import {
  decodeHeader,
  defineHeader,
  encodeHeader,
  encodeHeaderFast,
  HeaderFieldError,
  type HeaderInputOf,
  type HeaderOf,
  inherited,
  javaDoubleToString,
  onWire,
  opt,
  parseJavaBoolean,
  parseJavaDouble,
  parseJavaInt,
  parseJavaLong,
  prim,
  req,
  reqPrim,
  withDefault,
} from '../../../../src/remoting/protocol/header-schema.js';

const Sample = defineHeader({
  name: 'SampleHeader',
  javaClass: 'org.example.SampleHeader',
  fields: {
    name: req('string'),
    count: req('int'),
    offset: req('long'),
    note: opt('string'),
    retries: opt('int'),
    stamp: opt('long'),
    flag: opt('boolean'),
    ratio: opt('double'),
    unit: prim('boolean'),
    level: prim('int'),
    force: reqPrim('boolean'),
    crc: withDefault('int', 0, false),
    ordered: withDefault('boolean', false, true),
    renamed: onWire('z', opt('string')),
    bname: inherited('org.example.Base', opt('string')),
  },
  fastCodes: ['name', 'count', 'offset', 'renamed'],
});

const required = { name: 'n', count: 1, offset: 2n } as const;

function fieldError(fn: () => unknown): HeaderFieldError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof HeaderFieldError, `expected HeaderFieldError, got ${String(e)}`);
    return e;
  }
  assert.fail('no error thrown');
}

describe('decodeHeader', () => {
  test('reads every type, ignores unknown keys', () => {
    const h = decodeHeader(Sample, {
      name: 'x',
      count: '-12',
      offset: '9223372036854775807',
      note: '',
      retries: '+3',
      stamp: '-9223372036854775808',
      flag: 'TRUE',
      ratio: '1.5',
      unit: 'true',
      level: '7',
      force: 'false',
      crc: '123',
      ordered: 'true',
      z: 'zz',
      bname: 'broker-a',
      ns: 'namespace-from-5x',
      oway: 'true',
    });
    assert.deepEqual(h, {
      name: 'x',
      count: -12,
      offset: 9223372036854775807n,
      note: '',
      retries: 3,
      stamp: -9223372036854775808n,
      flag: true,
      ratio: 1.5,
      unit: true,
      level: 7,
      force: false,
      crc: 123,
      ordered: true,
      renamed: 'zz',
      bname: 'broker-a',
    });
  });

  test('absent optional fields are undefined, defaulted ones take the Java default', () => {
    const h = decodeHeader(Sample, { name: 'x', count: '0', offset: '0', force: 'true', ordered: 'false' });
    assert.deepEqual(h, {
      name: 'x',
      count: 0,
      offset: 0n,
      note: undefined,
      retries: undefined,
      stamp: undefined,
      flag: undefined,
      ratio: undefined,
      unit: false,
      level: 0,
      force: true,
      crc: 0,
      ordered: false,
      renamed: undefined,
      bname: undefined,
    });
    assert.ok(Object.hasOwn(h, 'note'), 'every field is a property, for a stable object shape');
  });

  test('a missing required field fails with upstream text and SYSTEM_ERROR', () => {
    const full = { name: 'x', count: '0', offset: '0', force: 'true', ordered: 'false' };
    for (const key of Object.keys(full)) {
      const ext: Record<string, string> = { ...full };
      delete ext[key];
      const e = fieldError(() => decodeHeader(Sample, ext));
      assert.equal(e.message, `the custom field <${key}> is null`);
      assert.equal(e.field, key);
      assert.equal(e.header, 'SampleHeader');
      assert.equal(e.responseCode, 1);
      assert.ok(e instanceof ValidationError);
      assert.ok(e instanceof RocketMQError);
    }
  });

  test('no extFields at all reads as empty', () => {
    assert.equal(
      fieldError(() => decodeHeader(Sample, undefined)).message,
      'the custom field <name> is null',
    );
    const Empty = defineHeader({ name: 'E', javaClass: 'E', fields: { a: opt('string'), b: prim('long') } });
    assert.deepEqual(decodeHeader(Empty, undefined), { a: undefined, b: 0n });
  });

  test('non-string values count as absent', () => {
    const ext = { name: 'x', count: '1', offset: '1', force: 'true', ordered: 'true', note: undefined };
    assert.equal(decodeHeader(Sample, ext).note, undefined);
    const withNull = JSON.parse(
      '{"name":"x","count":"1","offset":"1","force":"true","ordered":"true","retries":null}',
    );
    assert.equal(decodeHeader(Sample, withNull).retries, undefined);
    const noName = JSON.parse('{"name":null,"count":"1","offset":"1","force":"true","ordered":"true"}');
    assert.equal(fieldError(() => decodeHeader(Sample, noName)).message, 'the custom field <name> is null');
  });

  test('a bad number in a required field names the field and the value', () => {
    const base = { name: 'x', count: '1', offset: '1', force: 'true', ordered: 'true' };
    const e = fieldError(() => decodeHeader(Sample, { ...base, count: '12a' }));
    assert.equal(e.field, 'count');
    assert.equal(e.value, '12a');
    assert.match(e.message, /<count>/);
    assert.match(e.message, /"12a"/);
    assert.equal(e.responseCode, 1);
    assert.equal(fieldError(() => decodeHeader(Sample, { ...base, offset: '' })).field, 'offset');
    assert.equal(fieldError(() => decodeHeader(Sample, { ...base, count: '2147483648' })).field, 'count');
    assert.equal(
      fieldError(() => decodeHeader(Sample, { ...base, offset: '9223372036854775808' })).field,
      'offset',
    );
    const long = 'x'.repeat(10000);
    assert.ok(fieldError(() => decodeHeader(Sample, { ...base, count: long })).message.length < 200);
  });

  test('a bad number in an optional field reads as absent, as Java leaves it null', () => {
    const base = { name: 'x', count: '1', offset: '1', force: 'true', ordered: 'true' };
    const h = decodeHeader(Sample, {
      ...base,
      retries: 'x',
      stamp: '1.5',
      ratio: 'abc',
      level: '99999999999',
      crc: '',
    });
    assert.equal(h.retries, undefined);
    assert.equal(h.stamp, undefined);
    assert.equal(h.ratio, undefined);
    assert.equal(h.level, 0);
    assert.equal(h.crc, 0);
  });
});

describe('encodeHeader', () => {
  test('writes Java toString forms, skips undefined, always writes defaults', () => {
    const ext = encodeHeader(Sample, {
      ...required,
      note: undefined,
      retries: -5,
      stamp: -(2n ** 63n),
      flag: false,
      ratio: 0.1,
      renamed: 'r',
      bname: 'b',
    });
    assert.deepEqual(ext, {
      name: 'n',
      count: '1',
      offset: '2',
      retries: '-5',
      stamp: '-9223372036854775808',
      flag: 'false',
      ratio: '0.1',
      unit: 'false',
      level: '0',
      force: 'false',
      crc: '0',
      ordered: 'false',
      z: 'r',
      bname: 'b',
    });
  });

  test('keeps earlier keys of the target map in place', () => {
    const into: Record<string, string> = { MSG_REGION: 'DefaultRegion', name: 'old' };
    const out = encodeHeader(Sample, required, into);
    assert.equal(out, into);
    assert.equal(Object.keys(out)[0], 'MSG_REGION');
    assert.equal(Object.keys(out)[1], 'name');
    assert.equal(out.name, 'n');
  });

  test('insertion order is Java HashSet<Field> order, not declaration order', () => {
    const order = Sample.javaOrder.map((f) => f.key);
    assert.deepEqual([...order].sort(), Sample.fields.map((f) => f.key).sort());
    const all = encodeHeader(Sample, {
      ...required,
      note: 'a',
      retries: 1,
      stamp: 1n,
      flag: true,
      ratio: 1,
      renamed: 'r',
      bname: 'b',
    });
    assert.deepEqual(Object.keys(all), order);
  });

  test('fast order lists only the FastCodesHeader fields, in their order', () => {
    const fast = encodeHeaderFast(Sample, { ...required, renamed: 'r', bname: 'b', unit: true });
    assert.deepEqual(Object.keys(fast), ['name', 'count', 'offset', 'z']);
  });

  test('rejects a missing required field and values outside the Java type', () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ['name', { count: 1, offset: 1n }],
      ['count', { ...required, count: 2 ** 31 }],
      ['count', { ...required, count: -(2 ** 31) - 1 }],
      ['count', { ...required, count: 1.5 }],
      ['count', { ...required, count: Number.NaN }],
      ['count', { ...required, count: '1' }],
      ['offset', { ...required, offset: 1 }],
      ['offset', { ...required, offset: 2n ** 63n }],
      ['offset', { ...required, offset: -(2n ** 63n) - 1n }],
      ['flag', { ...required, flag: 'true' }],
      ['note', { ...required, note: 5 }],
      ['ratio', { ...required, ratio: 1n }],
    ];
    for (const [field, value] of bad) {
      const e = fieldError(() => encodeHeader(Sample, value as HeaderInputOf<typeof Sample>));
      assert.equal(
        e.field,
        field,
        JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      );
    }
    assert.equal(
      fieldError(() => encodeHeader(Sample, { count: 1, offset: 1n } as never)).message,
      'the custom field <name> is null',
    );
  });

  test('int32 and int64 limits pass', () => {
    const ext = encodeHeader(Sample, {
      name: '',
      count: -(2 ** 31),
      offset: 2n ** 63n - 1n,
      retries: 2 ** 31 - 1,
    });
    assert.equal(ext.count, '-2147483648');
    assert.equal(ext.retries, '2147483647');
    assert.equal(ext.offset, '9223372036854775807');
    assert.equal(ext.name, '');
    assert.equal(encodeHeader(Sample, { ...required, count: -0 }).count, '0');
  });

  test('round trip, including longs beyond 2^53', () => {
    const value: HeaderOf<typeof Sample> = {
      name: 'név ✓',
      count: 2147483647,
      offset: 2n ** 53n + 1n,
      note: 'a\u0001b\u0002',
      retries: -2147483648,
      stamp: -(2n ** 60n) - 7n,
      flag: true,
      ratio: -2.5e-7,
      unit: true,
      level: -1,
      force: true,
      crc: 99,
      ordered: true,
      renamed: 'r',
      bname: 'broker-b',
    };
    assert.deepEqual(decodeHeader(Sample, encodeHeader(Sample, value)), value);
  });
});

describe('decoded and input types', () => {
  test('are precise', () => {
    const h = decodeHeader(Sample, { name: 'x', count: '1', offset: '1', force: 'true', ordered: 'true' });
    const offset: bigint = h.offset;
    const count: number = h.count;
    const unit: boolean = h.unit;
    const note: string | undefined = h.note;
    // @ts-expect-error an optional field may be undefined
    const noteDefined: string = h.note;
    // @ts-expect-error a long is a bigint
    const offsetNumber: number = h.offset;
    // @ts-expect-error unknown properties do not exist
    h.nothing;
    assert.deepEqual(
      [offset, count, unit, note, noteDefined, offsetNumber],
      [1n, 1, false, undefined, undefined, 1n],
    );
    // @ts-expect-error required fields must be given
    assert.throws(() => encodeHeader(Sample, { name: 'x', count: 1 }), HeaderFieldError);
    // @ts-expect-error a long takes a bigint
    assert.throws(() => encodeHeader(Sample, { ...required, offset: 1 }), HeaderFieldError);
    // Fields with a Java default may be left out; a decoded header is a valid input.
    assert.equal(encodeHeader(Sample, required).force, 'false');
    assert.deepEqual(encodeHeader(Sample, h), encodeHeader(Sample, { ...h }));
  });
});

describe('Java parsers', () => {
  test('Integer.parseInt', () => {
    const ok: Array<[string, number]> = [
      ['0', 0],
      ['-0', 0],
      ['+7', 7],
      ['0000000000000042', 42],
      ['2147483647', 2147483647],
      ['-2147483648', -2147483648],
    ];
    for (const [s, v] of ok) assert.equal(parseJavaInt(s), v, s);
    assert.ok(Object.is(parseJavaInt('-0'), 0));
    for (const s of [
      '',
      '-',
      '+',
      '2147483648',
      '-2147483649',
      ' 1',
      '1 ',
      '1.0',
      '1e3',
      '0x10',
      '١',
      '--1',
      '99999999999999999999',
    ]) {
      assert.equal(parseJavaInt(s), undefined, s);
    }
  });

  test('Long.parseLong', () => {
    const ok: Array<[string, bigint]> = [
      ['0', 0n],
      ['-0', 0n],
      ['+15', 15n],
      ['9007199254740993', 9007199254740993n],
      ['-9007199254740993', -9007199254740993n],
      ['9223372036854775807', 9223372036854775807n],
      ['-9223372036854775808', -9223372036854775808n],
      ['+09223372036854775807', 9223372036854775807n],
      ['00000000000000000000000001', 1n],
    ];
    for (const [s, v] of ok) assert.equal(parseJavaLong(s), v, s);
    for (const s of [
      '',
      '-',
      '+',
      '9223372036854775808',
      '-9223372036854775809',
      '1n',
      ' 1',
      '1_000',
      '1.',
      '+-1',
    ]) {
      assert.equal(parseJavaLong(s), undefined, s);
    }
  });

  test('Boolean.parseBoolean: case-insensitive "true", anything else false', () => {
    for (const s of ['true', 'TRUE', 'True', 'tRuE']) assert.equal(parseJavaBoolean(s), true, s);
    for (const s of ['false', '', '1', 'yes', 'true ', ' true', 'truee', 'tru', 't\u0000ue', 'T\u0152UE']) {
      assert.equal(parseJavaBoolean(s), false, s);
    }
  });

  test('Double.parseDouble and Double.toString', () => {
    const ok: Array<[string, number]> = [
      ['1.5', 1.5],
      [' -2.0 ', -2],
      ['1e3', 1000],
      ['1.', 1],
      ['.5', 0.5],
      ['1.5f', 1.5],
      ['2D', 2],
      ['-Infinity', Number.NEGATIVE_INFINITY],
      ['1E-2', 0.01],
    ];
    for (const [s, v] of ok) assert.equal(parseJavaDouble(s), v, s);
    assert.ok(Number.isNaN(parseJavaDouble('NaN')));
    for (const s of ['', '.', 'e3', '1e', '0x10', '1.5x', 'inf', '1..2'])
      assert.equal(parseJavaDouble(s), undefined, s);
    const text: Array<[number, string]> = [
      [0, '0.0'],
      [-0, '-0.0'],
      [1, '1.0'],
      [100, '100.0'],
      [1234.5, '1234.5'],
      [0.001, '0.001'],
      [0.0001, '1.0E-4'],
      [1e7, '1.0E7'],
      [9999999, '9999999.0'],
      [1.2345e-7, '1.2345E-7'],
      [-3.5e21, '-3.5E21'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
    ];
    for (const [v, s] of text) assert.equal(javaDoubleToString(v), s, s);
  });

  test('String.hashCode', () => {
    assert.equal(javaStringHashCode(''), 0);
    assert.equal(javaStringHashCode('a'), 97);
    assert.equal(javaStringHashCode('hello'), 99162322);
    assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
    assert.equal(javaStringHashCode('ä'), 228);
  });
});

describe('defineHeader', () => {
  test('rejects two fields on one wire key and unknown fast fields', () => {
    assert.throws(() =>
      defineHeader({ name: 'D', javaClass: 'D', fields: { a: opt('string'), b: onWire('a', opt('int')) } }),
    );
    assert.throws(() =>
      defineHeader({ name: 'F', javaClass: 'F', fields: { a: opt('string') }, fastCodes: ['b' as 'a'] }),
    );
  });

  test('own fields come before inherited ones in declaration order', () => {
    const H = defineHeader({
      name: 'H',
      javaClass: 'H',
      fields: { sup: inherited('S', opt('string')), own: opt('string') },
    });
    assert.deepEqual(
      H.fields.map((f) => [f.key, f.declaredIn]),
      [
        ['own', 'H'],
        ['sup', 'S'],
      ],
    );
  });
});
