/**
 * Loggers: an application's pino-style logger receives fields first and the message second, with
 * `component` and the failure whole as `err`; the default JSON line keeps an error's stack and cause.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adoptLogger, createLogger, type LogRecord, serializeError } from '../../../src/common/logger.js';
import type { RocketMQLogger } from '../../../src/common/logger-interface.js';

test("an application's logger gets every level, fields first, with component and err", () => {
  const calls: Array<[string, Record<string, unknown>, string]> = [];
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => {
    calls.push([level, fields, msg]);
  };
  const app: RocketMQLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const logger = adoptLogger(app, 'client').child('producer');
  const failure = new Error('refused', { cause: new Error('ECONNREFUSED') });
  logger.debug('resolving', { topic: 'T' });
  logger.warn('send failed', { topic: 'T', skipped: undefined }, failure);
  assert.deepEqual(calls[0], ['debug', { component: 'client.producer', topic: 'T' }, 'resolving']);
  assert.deepEqual(calls[1], [
    'warn',
    { component: 'client.producer', topic: 'T', err: failure },
    'send failed',
  ]);
});

test('one of our loggers is used as it is; none gives the default', () => {
  const records: LogRecord[] = [];
  const ours = createLogger('x', { sink: (r) => records.push(r) });
  assert.equal(adoptLogger(ours, 'client'), ours);
  assert.equal(typeof adoptLogger(undefined, 'client').child, 'function');
});

test('an error in a log line keeps type, code, stack and its cause chain (bounded)', () => {
  const root = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const top = new Error('send failed', { cause: root });
  const line = serializeError(top) as Record<string, unknown>;
  assert.equal(line.type, 'Error');
  assert.match(String(line.stack), /send failed/);
  const cause = line.cause as Record<string, unknown>;
  assert.equal(cause.code, 'ECONNREFUSED');
  assert.match(String(cause.stack), /ECONNREFUSED/);
  const loop = new Error('loop');
  (loop as { cause?: unknown }).cause = loop;
  let depth = 0;
  for (
    let e = serializeError(loop) as { cause?: unknown };
    e.cause !== undefined;
    e = e.cause as { cause?: unknown }
  )
    depth++;
  assert.ok(depth <= 5, `depth ${depth}`);
  assert.equal(serializeError('text'), 'text');
});
