import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequest, createResponse } from '../../../src/remoting/protocol/command.js';
import {
  OpaqueSequence,
  PendingRequests,
  RemotingAbortedError,
  RemotingTimeoutError,
} from '../../../src/remoting/transport/index.js';

function responseFor(opaque: number, remark: string) {
  const req = createRequest(1);
  req.opaque = opaque;
  return createResponse(req, 0, { remark });
}

test('OpaqueSequence is an int32 counter that wraps to negative', () => {
  const seq = new OpaqueSequence(2147483646);
  assert.equal(seq.next(), 2147483647);
  assert.equal(seq.next(), -2147483648);
  assert.equal(seq.next(), -2147483647);
});

test('allocateOpaque skips opaques still waiting', async () => {
  const table = new PendingRequests('peer');
  const waiting = table.add(6, 60_000);
  const seq = new OpaqueSequence(4);
  assert.equal(table.allocateOpaque(seq), 5);
  assert.equal(table.allocateOpaque(seq), 7);
  assert.equal(table.complete(responseFor(6, 'x')), true);
  assert.equal((await waiting).remark, 'x');
});

test('responses match on the exact int32 opaque, negative ones included', async () => {
  const table = new PendingRequests('peer');
  const neg = table.add(-2147483648, 60_000);
  const pos = table.add(2147483647, 60_000);
  assert.equal(table.complete(responseFor(0, 'nobody')), false);
  assert.equal(table.complete(responseFor(2147483647, 'pos')), true);
  assert.equal(table.complete(responseFor(-2147483648, 'neg')), true);
  assert.equal((await neg).remark, 'neg');
  assert.equal((await pos).remark, 'pos');
  assert.equal(table.complete(responseFor(2147483647, 'again')), false);
  assert.equal(table.size, 0);
});

test('timeout rejects with RemotingTimeoutError and reports it', async () => {
  const timedOut: number[] = [];
  const table = new PendingRequests('broker:10911', (opaque) => timedOut.push(opaque));
  await assert.rejects(table.add(3, 5), (e: unknown) => {
    assert.ok(e instanceof RemotingTimeoutError);
    assert.equal(e.address, 'broker:10911');
    assert.equal(e.timeoutMs, 5);
    return true;
  });
  assert.deepEqual(timedOut, [3]);
  assert.equal(table.size, 0);
});

test('abort rejects with RemotingAbortedError carrying the reason; completion removes the listener', async () => {
  const table = new PendingRequests('peer');
  const controller = new AbortController();
  const aborted = table.add(1, 60_000, controller.signal);
  const reason = new Error('stop');
  controller.abort(reason);
  await assert.rejects(aborted, (e: unknown) => e instanceof RemotingAbortedError && e.cause === reason);

  const other = new AbortController();
  const done = table.add(2, 60_000, other.signal);
  table.complete(responseFor(2, 'ok'));
  assert.equal((await done).remark, 'ok');
  other.abort();
  assert.equal(table.size, 0);
});

test('failAll rejects every waiting request', async () => {
  const table = new PendingRequests('peer');
  const all = [1, 2, 3].map((o) => table.add(o, 60_000));
  table.failAll(() => new Error('gone'));
  for (const p of all) await assert.rejects(p, /gone/);
  assert.equal(table.size, 0);
});

test('a timeout beyond the int32 timer range is not cut to 1 ms', async () => {
  const table = new PendingRequests('peer');
  const long = table.add(1, 2 ** 40);
  await assert.rejects(table.add(2, 20), RemotingTimeoutError);
  assert.equal(table.has(1), true);
  table.complete(responseFor(1, 'late'));
  assert.equal((await long).remark, 'late');
});
