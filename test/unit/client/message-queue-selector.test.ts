/**
 * The built-in queue selectors. The hash selector must pick the queue a Java producer picks with
 * SelectMessageQueueByHash (`abs(arg.hashCode() % size)`), so ordered messages from Node and Java
 * producers of one key meet in one queue. The expected values below were computed with a JDK 17
 * (String/Integer/Long/Boolean.hashCode) and are hardcoded.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  javaHashCodeOf,
  selectMessageQueueByHash,
  selectMessageQueueByMachineRoom,
  selectMessageQueueByRandom,
} from '../../../src/client/producer/message-queue-selector.js';
import { Message } from '../../../src/common/message/message.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';

function queues(n: number, broker = 'b'): MessageQueue[] {
  return Array.from({ length: n }, (_, i) => new MessageQueue('T', broker, i));
}

const msg = new Message('T', Buffer.from('x'));

/** [argument, Java hashCode, queue of 8, queue of 3] */
const JAVA: Array<[string | number | bigint | boolean, number, number, number]> = [
  ['hello', 99162322, 2, 1],
  ['Hello World', -862545276, 4, 0],
  ['polygenelubricants', -2147483648, 0, 2],
  ['order-1', -1207111310, 6, 2],
  ['ORDER_20240101_42', 1479028618, 2, 1],
  ['用户7', 29601800, 0, 2],
  ['😀', 1772899, 3, 1],
  ['', 0, 0, 0],
  [0, 0, 0, 0],
  [1, 1, 1, 1],
  [-1, -1, 1, 1],
  [7, 7, 7, 1],
  [-7, -7, 7, 1],
  [2147483647, 2147483647, 7, 1],
  [-2147483648, -2147483648, 0, 2],
  [123456789, 123456789, 5, 0],
  // Beyond int32: Long.hashCode.
  [4294967296, 1, 1, 1],
  [-4294967297, 1, 1, 1],
  [9007199254740991n, -2097152, 0, 2],
  [true, 1231, 7, 1],
  [false, 1237, 5, 1],
];

describe('selectMessageQueueByHash', () => {
  for (const [arg, hash, of8, of3] of JAVA) {
    test(`${typeof arg} ${JSON.stringify(typeof arg === 'bigint' ? arg.toString() : arg)}`, () => {
      assert.equal(javaHashCodeOf(arg), hash);
      assert.equal(selectMessageQueueByHash(queues(8), msg, arg).queueId, of8);
      assert.equal(selectMessageQueueByHash(queues(3), msg, arg).queueId, of3);
    });
  }

  test('equal arguments always pick one queue; the message does not matter', () => {
    const mqs = queues(5);
    const other = new Message('T', Buffer.from('y'), { tags: 't' });
    for (const arg of ['k1', 42, { toString: () => 'obj' }, null, undefined]) {
      const first = selectMessageQueueByHash(mqs, msg, arg);
      for (let i = 0; i < 5; i++) assert.equal(selectMessageQueueByHash(mqs, other, arg), first);
    }
    // Objects hash through their string form.
    assert.equal(javaHashCodeOf({ toString: () => 'hello' }), 99162322);
  });

  test('odd numbers still give a queue in range', () => {
    for (const arg of [1.5, -0.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300, -1e300, 2n ** 100n]) {
      const mq = selectMessageQueueByHash(queues(7), msg, arg);
      assert.ok(mq instanceof MessageQueue, String(arg));
    }
  });
});

describe('selectMessageQueueByRandom', () => {
  test('picks queues of the list, all of them over time', () => {
    const mqs = queues(4);
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const mq = selectMessageQueueByRandom(mqs, msg, undefined);
      assert.ok(mqs.includes(mq));
      seen.add(mq.queueId);
    }
    assert.equal(seen.size, 4);
  });
});

describe('selectMessageQueueByMachineRoom', () => {
  test('queues of brokers in the given rooms, by hash; every queue when none is', () => {
    const mqs = [...queues(2, 'room1@broker-a'), ...queues(3, 'room2@broker-b'), ...queues(2, 'broker-c')];
    const selector = selectMessageQueueByMachineRoom(['room2']);
    for (const arg of ['a', 'b', 'c', 1, 2, 3]) {
      const mq = selector(mqs, msg, arg);
      assert.equal(mq.brokerName, 'room2@broker-b');
      assert.equal(mq, selectMessageQueueByHash(mqs.slice(2, 5), msg, arg));
    }
    const nowhere = selectMessageQueueByMachineRoom(['room9']);
    assert.equal(nowhere(mqs, msg, 'hello'), selectMessageQueueByHash(mqs, msg, 'hello'));
  });
});
