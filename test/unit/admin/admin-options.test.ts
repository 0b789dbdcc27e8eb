/** Admin options: upstream's defaults, bad values refused by name; the call deadline helper. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ADMIN_OPTIONS, resolveAdminOptions } from '../../../src/admin/admin-options.js';
import { withinDeadline } from '../../../src/admin/deadline.js';
import { ValidationError } from '../../../src/common/errors.js';
import { RemotingAbortedError, RemotingTimeoutError } from '../../../src/remoting/transport/errors.js';

test('defaults are upstream DefaultMQAdminExt: admin_ext_group, TBW102, 5000 ms', () => {
  assert.deepEqual(resolveAdminOptions({}), {
    adminExtGroup: 'admin_ext_group',
    createTopicKey: 'TBW102',
    timeoutMillis: 5000,
  });
  assert.equal(DEFAULT_ADMIN_OPTIONS.timeoutMillis, 5000);
  assert.equal(resolveAdminOptions({ adminExtGroup: 'ops', timeoutMillis: 250 }).timeoutMillis, 250);
});

test('bad values are refused with their names', () => {
  assert.throws(
    () => resolveAdminOptions({ timeoutMillis: -1 }),
    (e: unknown) => e instanceof ValidationError && /timeoutMillis/.test(String(e)),
  );
  assert.throws(() => resolveAdminOptions({ timeoutMillis: Number.NaN }), /timeoutMillis/);
  assert.throws(() => resolveAdminOptions({ createTopicKey: '' }), /createTopicKey/);
});

function waitForAbort(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    signal?.addEventListener(
      'abort',
      () => reject(new RemotingAbortedError('10.0.0.9:10911', signal.reason)),
      {
        once: true,
      },
    );
  });
}

test('withinDeadline: a call outliving its timeout is a RemotingTimeoutError naming the peer', async () => {
  const started = Date.now();
  await assert.rejects(
    withinDeadline('10.0.0.9:10911', { timeoutMs: 50 }, (c) => waitForAbort(c.signal)),
    (e: unknown) =>
      e instanceof RemotingTimeoutError &&
      e.message.includes('10.0.0.9:10911') &&
      e.message.includes('50 ms'),
  );
  assert.ok(Date.now() - started < 1000);
});

test('withinDeadline: the caller aborting stays an abort; a result in time is passed on', async () => {
  const controller = new AbortController();
  const call = withinDeadline('10.0.0.9:10911', { timeoutMs: 10_000, signal: controller.signal }, (c) =>
    waitForAbort(c.signal),
  );
  controller.abort();
  await assert.rejects(call, RemotingAbortedError);
  assert.equal(await withinDeadline('p', { timeoutMs: 1000 }, async () => 7), 7);
});
