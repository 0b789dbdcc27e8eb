import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DenialLog } from '../../../../src/common/acl/denial-log.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../../src/common/logger.js';

test('one warn line per kind of denial per interval; the next says how many were left out', () => {
  const clock = new ManualClock();
  const lines: LogRecord[] = [];
  const log = new DenialLog({
    clock,
    logger: createLogger('acl', { sink: (r) => lines.push(r) }),
    intervalMs: 1000,
  });
  for (let i = 0; i < 50; i++)
    log.denied('signature', 10, 'RocketMQ', '10.0.0.1:5', 'Check signature failed');
  log.denied('admin', 17, 'RocketMQ', '10.0.0.1:5', 'Need admin permission');
  assert.equal(lines.length, 2);
  clock.advance(1000);
  log.denied('signature', 10, 'x'.repeat(10_000), '10.0.0.1:5', 'Check signature failed');
  assert.equal(lines.length, 3);
  const last = lines[2];
  assert.equal(last?.level, 'warn');
  assert.equal(last?.fields.suppressedBefore, 49);
  assert.ok(String(last?.fields.accessKey).length < 200, 'a huge accessKey is cut short');
  assert.deepEqual(Object.keys(last?.fields ?? {}).sort(), [
    'accessKey',
    'code',
    'reason',
    'remoteAddress',
    'suppressedBefore',
  ]);
});
