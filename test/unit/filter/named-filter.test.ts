/**
 * Named filters, the pure parts: the shape an operator's module must export, the read-only message
 * view a filter gets, and the registry (not configured, unknown names, one expression per name, a
 * filter that throws or answers something other than a boolean, warned about once per reason).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  compressBody,
  compressedSysFlag,
  encodeMessage,
  MESSAGE_MAGIC_CODE_V2,
  MessageExt,
} from '../../../src/common/message/index.js';
import {
  FilterCompileError,
  FilterEvaluationError,
  filterExpressionType,
  isNamedType,
  NAMED_EXPRESSION_TYPE,
  type NamedFilterFunction,
  type NamedFilterMessage,
  NamedFilterRegistry,
  namedFilterMessage,
  namedFiltersFromModule,
} from '../../../src/filter/index.js';

interface RecordInit {
  topic?: string;
  props?: Readonly<Record<string, string>>;
  body?: Buffer;
  compressed?: boolean;
  magicCode?: number;
}

function record(init: RecordInit = {}): Buffer {
  const ext = new MessageExt(init.topic ?? 'TopicTest', init.body ?? Buffer.from('hello'));
  ext.properties = new Map(Object.entries(init.props ?? { TAGS: 'TagA', KEYS: 'k1 k2', color: 'red' }));
  ext.queueId = 3;
  ext.queueOffset = 41n;
  ext.bornTimestamp = 1700000000123n;
  ext.storeTimestamp = 1700000000456n;
  ext.reconsumeTimes = 2;
  if (init.magicCode !== undefined) ext.magicCode = init.magicCode;
  if (init.compressed === true) {
    ext.sysFlag = compressedSysFlag();
    ext.body = compressBody(ext.body);
  }
  return encodeMessage(ext);
}

function capture(): { logger: ReturnType<typeof createLogger>; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: createLogger('test', { level: 'debug', sink: (r) => records.push(r) }), records };
}

const yes: NamedFilterFunction = () => true;

describe('namedFiltersFromModule', () => {
  test('a default export object, a `filters` export (which wins), or a Map', () => {
    const red: NamedFilterFunction = (m) => m.properties.get('color') === 'red';
    assert.deepEqual(
      [...namedFiltersFromModule({ default: { red, yes } })],
      [
        ['red', red],
        ['yes', yes],
      ],
    );
    assert.deepEqual([...namedFiltersFromModule({ filters: { red }, default: { yes } })], [['red', red]]);
    assert.deepEqual(
      [...namedFiltersFromModule({ default: new Map([['com.example.Red$1', red]]) })],
      [['com.example.Red$1', red]],
    );
    // A Module namespace object has a null prototype; that is fine.
    const ns = Object.assign(Object.create(null) as Record<string, unknown>, { filters: { red } });
    assert.equal(namedFiltersFromModule(ns).get('red'), red);
  });

  test('no usable export, or an export that is not a map of filters, names the problem', () => {
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /the module is undefined, not a module namespace/],
      [{}, /exports neither `filters` nor a default export/],
      [{ other: { yes } }, /exports neither `filters` nor a default export/],
      [{ default: yes }, /its default export is a function, not a Map or an object of filter functions/],
      [{ filters: [yes] }, /its filters export is an array, not a Map/],
      [{ default: 'yes' }, /its default export is a string/],
      [{ default: null }, /its default export is null/],
      [{ default: {} }, /its default export holds no filters/],
      [{ filters: new Map() }, /its filters export holds no filters/],
    ];
    for (const [ns, expected] of cases) {
      assert.throws(
        () => namedFiltersFromModule(ns),
        (e: unknown) => e instanceof Error && e.name === 'ValidationError' && expected.test(e.message),
        String(expected),
      );
    }
  });

  test('every bad entry is listed: names, values that are not functions, async functions', () => {
    const filters = new Map<unknown, unknown>([
      ['ok', yes],
      ['', yes],
      ['has space', yes],
      ['x'.repeat(256), yes],
      [7, yes],
      ['notFn', 'true'],
      ['obj', { match: yes }],
      ['later', async () => true],
    ]);
    let message = '';
    try {
      namedFiltersFromModule({ default: filters });
    } catch (error) {
      message = error instanceof Error ? error.message : '';
    }
    assert.match(message, /^its default export: /);
    assert.match(message, /filter name "" is not 1\.\.255 characters/);
    assert.match(message, /filter name "has space" is not/);
    assert.match(message, /filter name "x{64}\.\.\." is not/);
    assert.match(message, /filter name a number is not/);
    assert.match(message, /filter "notFn" is a string, not a function/);
    assert.match(message, /filter "obj" is an object, not a function/);
    assert.match(message, /filter "later" is an async function; a filter returns a boolean synchronously/);
    assert.doesNotMatch(message, /"ok"/);
    assert.equal(namedFiltersFromModule({ default: { ['x'.repeat(255)]: yes } }).size, 1);
  });
});

describe('namedFilterMessage: the view a filter gets', () => {
  test('topic, tags, keys, properties, body, queue position, timestamps, reconsume count', () => {
    const m = namedFilterMessage(record());
    assert.equal(m.topic, 'TopicTest');
    assert.equal(m.tags, 'TagA');
    assert.equal(m.keys, 'k1 k2');
    assert.deepEqual(
      m.properties,
      new Map([
        ['TAGS', 'TagA'],
        ['KEYS', 'k1 k2'],
        ['color', 'red'],
      ]),
    );
    assert.deepEqual(m.body, Buffer.from('hello'));
    assert.equal(m.queueId, 3);
    assert.equal(m.queueOffset, 41n);
    assert.equal(m.bornTimestamp, 1700000000123);
    assert.equal(m.storeTimestamp, 1700000000456);
    assert.equal(m.reconsumeTimes, 2);
  });

  test('no properties: an empty map, no tags or keys; a V2 record reads the same', () => {
    const m = namedFilterMessage(record({ props: {}, magicCode: MESSAGE_MAGIC_CODE_V2 }));
    assert.equal(m.properties.size, 0);
    assert.equal(m.tags, undefined);
    assert.equal(m.keys, undefined);
    assert.equal(m.topic, 'TopicTest');
  });

  test('the view is frozen and its body a copy: a filter cannot change what the pull returns', () => {
    const stored = record();
    const before = Buffer.from(stored);
    const m = namedFilterMessage(stored);
    assert.ok(Object.isFrozen(m));
    assert.throws(() => {
      (m as { topic: string }).topic = 'other';
    }, TypeError);
    m.body.fill(0x78);
    (m.properties as Map<string, string>).set('color', 'blue');
    assert.deepEqual(stored, before);
    // The body is read once per view.
    assert.equal(m.body, m.body);
    assert.equal(namedFilterMessage(stored).properties.get('color'), 'red');
  });

  test('a compressed body is inflated; the topic can be replaced (retried messages)', () => {
    const body = Buffer.from('z'.repeat(5000));
    const m = namedFilterMessage(record({ body, compressed: true }), 'RealTopic');
    assert.deepEqual(m.body, body);
    assert.equal(m.topic, 'RealTopic');
  });

  test('a record that does not parse is a typed error', () => {
    assert.throws(() => namedFilterMessage(Buffer.alloc(12)), { name: 'RemotingCommandError' });
    const blank = Buffer.alloc(8);
    blank.writeInt32BE(8, 0);
    blank.writeInt32BE(0xcbd43194 | 0, 4);
    assert.throws(() => namedFilterMessage(blank), { name: 'ValidationError' });
  });
});

describe('filterExpressionType', () => {
  test("NAMED as sent, and upstream's class-filter flag as NAMED whatever the type says", () => {
    assert.equal(filterExpressionType({ expressionType: 'NAMED', classFilterMode: false }), 'NAMED');
    assert.equal(filterExpressionType({ expressionType: 'TAG', classFilterMode: true }), 'NAMED');
    assert.equal(filterExpressionType({ expressionType: 'TAG', classFilterMode: false }), 'TAG');
    assert.equal(filterExpressionType({ expressionType: 'SQL92', classFilterMode: false }), 'SQL92');
    assert.equal(isNamedType(NAMED_EXPRESSION_TYPE), true);
    assert.equal(isNamedType('named'), false);
    assert.equal(isNamedType(undefined), false);
  });
});

describe('NamedFilterRegistry', () => {
  test('unconfigured, every name fails to compile with SUBSCRIPTION_PARSE_FAILED saying so', () => {
    const r = new NamedFilterRegistry({ configureHint: 'broker.conf namedFilterModule is empty' });
    assert.equal(r.configured, false);
    assert.deepEqual(r.names, []);
    assert.throws(
      () => r.compile('red'),
      (e: unknown) =>
        e instanceof FilterCompileError &&
        e.responseCode === 23 &&
        e.message ===
          'named filters are not configured on this broker (broker.conf namedFilterModule is empty)',
    );
    assert.throws(() => new NamedFilterRegistry().compile('red'), {
      message: 'named filters are not configured on this broker',
    });
  });

  test('configured once; an unknown name is refused by name (cut short); one expression per name', () => {
    const r = new NamedFilterRegistry();
    r.configure(new Map([['red', yes]]));
    assert.equal(r.configured, true);
    assert.deepEqual(r.names, ['red']);
    assert.throws(() => r.configure(new Map()), { name: 'ValidationError' });
    const red = r.compile('red');
    assert.equal(red.type, 'NAMED');
    assert.equal(red.text, 'red');
    assert.equal(r.compile('red'), red);
    assert.throws(
      () => r.compile('blue'),
      (e: unknown) =>
        e instanceof FilterCompileError &&
        e.responseCode === 23 &&
        e.message === 'named filter "blue" does not exist on this broker',
    );
    assert.throws(() => r.compile('q'.repeat(10_000)), {
      message: `named filter "${'q'.repeat(64)}..." does not exist on this broker`,
    });
  });

  test("the filter's boolean decides; it sees the record's view", () => {
    const seen: NamedFilterMessage[] = [];
    const r = new NamedFilterRegistry();
    r.configure(
      new Map<string, NamedFilterFunction>([
        [
          'red',
          (m) => {
            seen.push(m);
            return m.properties.get('color') === 'red';
          },
        ],
      ]),
    );
    const red = r.compile('red');
    assert.equal(red.matchesRecord(record()), true);
    assert.equal(red.matchesRecord(record({ props: { color: 'blue' } })), false);
    assert.equal(red.matchesRecord(record(), 'Original'), true);
    assert.deepEqual(
      seen.map((m) => m.topic),
      ['TopicTest', 'TopicTest', 'Original'],
    );
    // A record that does not parse never reaches the filter.
    assert.equal(red.matchesRecord(Buffer.alloc(20)), false);
    assert.equal(seen.length, 3);
  });

  test('properties alone are not enough for a named filter', () => {
    const r = new NamedFilterRegistry();
    r.configure(new Map([['all', yes]]));
    const all = r.compile('all');
    assert.throws(() => all.evaluate(), FilterEvaluationError);
    assert.equal(all.matches(), false);
  });

  test('a throw or a non-boolean answer does not match, with one warning per filter and reason', async () => {
    const { logger, records } = capture();
    const r = new NamedFilterRegistry({ logger });
    let rejected = 0;
    r.configure(
      new Map<string, NamedFilterFunction>([
        [
          'boom',
          () => {
            throw new Error('kaput');
          },
        ],
        ['maybe', (m) => (m.tags === 'TagA' ? (1 as unknown as boolean) : (undefined as unknown as boolean))],
        [
          'promise',
          () => {
            rejected++;
            return Promise.reject(new Error('later')) as unknown as boolean;
          },
        ],
        ['odd', (m) => (m.queueOffset % 2n === 1n ? true : (null as unknown as boolean))],
      ]),
    );
    const msg = record();
    for (let i = 0; i < 5; i++) {
      assert.equal(r.compile('boom').matchesRecord(msg), false);
      assert.equal(r.compile('maybe').matchesRecord(msg), false);
      assert.equal(r.compile('maybe').matchesRecord(record({ props: {} })), false);
      assert.equal(r.compile('promise').matchesRecord(msg), false);
    }
    // The odd filter answers true for offset 41, so a good answer is still used.
    assert.equal(r.compile('odd').matchesRecord(msg), true);
    assert.equal(rejected, 5);
    // Let the rejected promises settle: none may surface as an unhandled rejection.
    await new Promise((resolve) => setImmediate(resolve));
    const warnings = records.filter((x) => x.level === 'warn');
    assert.deepEqual(
      warnings.map((w) => [w.fields.filter, w.fields.reason, w.fields.detail]),
      [
        ['boom', 'threw', 'kaput'],
        ['maybe', 'returned a non-boolean', 'a number'],
        ['promise', 'returned a non-boolean', 'a Promise'],
      ],
    );
    assert.match(warnings[0]?.msg ?? '', /once per filter and reason/);
  });

  test('a thrown non-Error and a very long message are logged, the latter cut short', () => {
    const { logger, records } = capture();
    const r = new NamedFilterRegistry({ logger });
    r.configure(
      new Map<string, NamedFilterFunction>([
        [
          'str',
          () => {
            throw 'plain';
          },
        ],
        [
          'long',
          () => {
            throw new Error('e'.repeat(1000));
          },
        ],
      ]),
    );
    assert.equal(r.compile('str').matchesRecord(record()), false);
    assert.equal(r.compile('long').matchesRecord(record()), false);
    assert.deepEqual(
      records.map((x) => x.fields.detail),
      ['plain', `${'e'.repeat(200)}...`],
    );
  });
});
