/**
 * NamedFilterRegistry's deadline without a broker: a call that runs too long is stopped and does not
 * match, the others go on matching, breaches are counted per filter, and the settings validate.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { encodeMessage, MessageExt } from '../../../src/common/message/index.js';
import {
  DEFAULT_NAMED_FILTER_MAX_TIMEOUTS,
  DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS,
  type NamedFilterFunction,
  NamedFilterRegistry,
} from '../../../src/filter/index.js';

function record(props: Readonly<Record<string, string>>): Buffer {
  const ext = new MessageExt('TopicA', Buffer.from('body'));
  ext.properties = new Map(Object.entries(props));
  return encodeMessage(ext);
}

/** Loops on a message marked loop=1, otherwise matches red ones. */
const picky: NamedFilterFunction = (m) => {
  if (m.properties.get('loop') === '1') for (;;) {}
  return m.properties.get('color') === 'red';
};

function registry(options: { timeoutMillis?: number; maxTimeouts?: number }) {
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'debug', sink: (r) => records.push(r) });
  const r = new NamedFilterRegistry({ logger, ...options });
  r.configure(new Map([['picky', picky]]));
  return { r, records };
}

describe('named filter deadline (registry)', () => {
  test('defaults: 100 ms, disabled after 3 breaches', () => {
    assert.deepEqual([DEFAULT_NAMED_FILTER_TIMEOUT_MILLIS, DEFAULT_NAMED_FILTER_MAX_TIMEOUTS], [100, 3]);
  });

  test('only the looping call is stopped; the filter keeps judging other messages', () => {
    const { r, records } = registry({ timeoutMillis: 50, maxTimeouts: 3 });
    const expr = r.compile('picky');
    assert.equal(expr.matchesRecord(record({ color: 'red' })), true);
    assert.equal(expr.matchesRecord(record({ color: 'red', loop: '1' })), false);
    assert.equal(expr.matchesRecord(record({ color: 'red' })), true);
    assert.equal(expr.matchesRecord(record({ color: 'blue' })), false);
    assert.equal(r.timeoutCount('picky'), 1);
    assert.equal(r.isDisabled('picky'), false);
    const warn = records.filter((x) => x.msg.includes('deadline'));
    assert.deepEqual(
      warn.map((x) => [x.level, x.fields.filter, x.fields.timeouts]),
      [['warn', 'picky', 1]],
    );
    // Two more breaches disable it: from then on it matches nothing and is not called.
    expr.matchesRecord(record({ loop: '1' }));
    expr.matchesRecord(record({ loop: '1' }));
    assert.equal(r.isDisabled('picky'), true);
    assert.equal(expr.matchesRecord(record({ color: 'red' })), false);
    assert.equal(records.filter((x) => x.level === 'error' && x.fields.filter === 'picky').length, 1);
  });

  test('bad settings are refused', () => {
    assert.throws(() => new NamedFilterRegistry({ timeoutMillis: -1 }), ValidationError);
    assert.throws(() => new NamedFilterRegistry({ maxTimeouts: 1.5 }), ValidationError);
  });
});
