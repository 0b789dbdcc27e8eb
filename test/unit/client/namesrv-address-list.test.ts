/**
 * Name server failover: a call goes to the chosen name server first and moves on only when that one
 * cannot be reached; the one that answers becomes the chosen one; a timeout, an abort or an answer
 * (even a failure) ends the call where it is.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClientErrorCode, MQBrokerError, MQClientError } from '../../../src/client/errors.js';
import { NamesrvAddressList } from '../../../src/client/instance/namesrv-address-list.js';
import {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
} from '../../../src/remoting/transport/errors.js';

const FAR = Number.MAX_SAFE_INTEGER;

/** A call that fails on the servers in `failures` with their error and answers elsewhere. */
function caller(failures: Record<string, Error>) {
  const tried: string[] = [];
  const call = async (address: string): Promise<string> => {
    tried.push(address);
    const error = failures[address];
    if (error !== undefined) throw error;
    return `answer of ${address}`;
  };
  return { tried, call };
}

describe('NamesrvAddressList', () => {
  test('order: the chosen server first, then round the list', () => {
    const list = new NamesrvAddressList(['a:1', 'b:1', 'c:1']);
    assert.deepEqual(list.order(), ['a:1', 'b:1', 'c:1']);
    list.choose('b:1');
    assert.deepEqual(list.order(), ['b:1', 'c:1', 'a:1']);
    list.choose('zz:1');
    assert.deepEqual(list.order(), ['b:1', 'c:1', 'a:1']);
  });

  test('a reachable chosen server answers and stays chosen', async () => {
    const list = new NamesrvAddressList(['a:1', 'b:1']);
    const { tried, call } = caller({});
    assert.equal(await list.invoke(call, FAR), 'answer of a:1');
    assert.equal(await list.invoke(call, FAR), 'answer of a:1');
    assert.deepEqual(tried, ['a:1', 'a:1']);
  });

  test('unreachable servers are skipped; the one that answers sticks', async () => {
    const list = new NamesrvAddressList(['a:1', 'b:1', 'c:1']);
    const failing = caller({
      'a:1': new RemotingConnectError('a:1', 'ECONNREFUSED'),
      'b:1': new RemotingConnectionClosedError('b:1', 'reset'),
    });
    assert.equal(await list.invoke(failing.call, FAR), 'answer of c:1');
    assert.deepEqual(failing.tried, ['a:1', 'b:1', 'c:1']);
    // Even once a:1 is back, calls go to c:1 first.
    const healthy = caller({});
    assert.equal(await list.invoke(healthy.call, FAR), 'answer of c:1');
    assert.deepEqual(healthy.tried, ['c:1']);
    assert.deepEqual(list.order(), ['c:1', 'a:1', 'b:1']);
  });

  test('a timeout, an abort or an answer does not move on', async () => {
    const finals: Error[] = [
      new RemotingTimeoutError('a:1', 3000),
      new RemotingAbortedError('a:1', new Error('stop')),
      new MQBrokerError(1, 'boom', { brokerAddr: 'a:1' }),
      new TypeError('a bug'),
    ];
    for (const error of finals) {
      const list = new NamesrvAddressList(['a:1', 'b:1']);
      const { tried, call } = caller({ 'a:1': error });
      await assert.rejects(list.invoke(call, FAR), (e: unknown) => e === error);
      assert.deepEqual(tried, ['a:1'], error.name);
      assert.deepEqual(list.order(), ['a:1', 'b:1'], error.name);
    }
  });

  test('when none can be reached, the last failure is thrown and the choice is kept', async () => {
    const list = new NamesrvAddressList(['a:1', 'b:1']);
    list.choose('b:1');
    const last = new RemotingConnectError('a:1', 'EHOSTUNREACH');
    const { tried, call } = caller({ 'a:1': last, 'b:1': new RemotingConnectError('b:1', 'ECONNREFUSED') });
    await assert.rejects(list.invoke(call, FAR), (e: unknown) => e === last);
    assert.deepEqual(tried, ['b:1', 'a:1']);
    assert.deepEqual(list.order(), ['b:1', 'a:1']);
  });

  test('a deadline already passed stops after the first server', async () => {
    const list = new NamesrvAddressList(['a:1', 'b:1']);
    const first = new RemotingConnectError('a:1', 'ECONNREFUSED');
    const { tried, call } = caller({ 'a:1': first });
    await assert.rejects(list.invoke(call, Date.now() - 1), (e: unknown) => e === first);
    assert.deepEqual(tried, ['a:1']);
  });

  test('the deadline is passed to every attempt', async () => {
    const list = new NamesrvAddressList(['a:1', 'b:1']);
    const seen: number[] = [];
    const deadline = Date.now() + 60_000;
    await list.invoke(async (address, d) => {
      seen.push(d);
      if (address === 'a:1') throw new RemotingConnectError(address, 'x');
      return 1;
    }, deadline);
    assert.deepEqual(seen, [deadline, deadline]);
  });

  test('no name server: MQClientError NO_NAME_SERVER_EXCEPTION', async () => {
    const list = new NamesrvAddressList([]);
    await assert.rejects(
      list.invoke(async () => 1, FAR),
      (e: unknown) =>
        e instanceof MQClientError && e.responseCode === ClientErrorCode.NO_NAME_SERVER_EXCEPTION,
    );
  });

  test('update keeps the chosen server when it is still listed', () => {
    const list = new NamesrvAddressList(['a:1', 'b:1']);
    list.choose('b:1');
    list.update(['c:1', 'b:1', 'd:1']);
    assert.deepEqual(list.order(), ['b:1', 'd:1', 'c:1']);
    list.update(['x:1', 'y:1']);
    assert.deepEqual(list.order(), ['x:1', 'y:1']);
    assert.deepEqual(list.addresses, ['x:1', 'y:1']);
    list.update([]);
    assert.deepEqual(list.order(), []);
  });
});
