/**
 * LockBatchRequestBody, UnlockBatchRequestBody and LockBatchResponseBody against the bytes the
 * official 4.9.8 classes write (each expected string below was printed by `encode()` of the Java
 * class), and the HashSet<MessageQueue> order those bodies are written in.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeLockBatchRequestBody,
  decodeLockBatchResponseBody,
  decodeUnlockBatchRequestBody,
  encodeLockBatchRequestBody,
  encodeLockBatchResponseBody,
  encodeUnlockBatchRequestBody,
} from '../../../src/common/protocol/lock-batch-body.js';
import { javaMessageQueueSetOrder } from '../../../src/common/protocol/message-queue-value.js';

const mq = (topic: string, queueId: number, brokerName = 'broker-a') =>
  new MessageQueue(topic, brokerName, queueId);

/** fastjson writes a MessageQueue with its getters sorted: brokerName, queueId, topic. */
const MQ = (topic: string, queueId: number) =>
  `{"brokerName":"broker-a","queueId":${queueId},"topic":"${topic}"}`;

// Bean fields sorted: clientId, consumerGroup, mqSet (a Set: a JSON array, never pretty-printed).
const REQUEST =
  '{"clientId":"127.0.0.1@4242#1234567890","consumerGroup":"cg-order",' +
  `"mqSet":[${MQ('TopicTest', 0)},${MQ('TopicTest', 1)}]}`;

/**
 * `new HashSet<>()` of TopicTest 0..7 then OrderTopic 0..3, as Java wrote it: queues 3/O1, 2/O0,
 * 1/O3 and 0/O2 share buckets, each pair in insertion order.
 */
const MANY_IN_JAVA_ORDER = [
  ['TopicTest', 7],
  ['TopicTest', 6],
  ['TopicTest', 3],
  ['OrderTopic', 1],
  ['TopicTest', 2],
  ['OrderTopic', 0],
  ['TopicTest', 5],
  ['TopicTest', 4],
  ['TopicTest', 1],
  ['OrderTopic', 3],
  ['TopicTest', 0],
  ['OrderTopic', 2],
] as const;

function many(): MessageQueue[] {
  const out: MessageQueue[] = [];
  for (let i = 0; i < 8; i++) out.push(mq('TopicTest', i));
  for (let i = 0; i < 4; i++) out.push(mq('OrderTopic', i));
  return out;
}

describe('LockBatchRequestBody / UnlockBatchRequestBody', () => {
  const body = {
    consumerGroup: 'cg-order',
    clientId: '127.0.0.1@4242#1234567890',
    mqSet: [mq('TopicTest', 0), mq('TopicTest', 1)],
  };

  test('writes the official bytes, both bodies alike', () => {
    assert.equal(encodeLockBatchRequestBody(body).toString('utf8'), REQUEST);
    assert.equal(encodeUnlockBatchRequestBody(body).toString('utf8'), REQUEST);
  });

  test('reads the official bytes', () => {
    assert.deepEqual(decodeLockBatchRequestBody(Buffer.from(REQUEST)), body);
    assert.deepEqual(decodeUnlockBatchRequestBody(Buffer.from(REQUEST)), body);
  });

  test('a HashSet of twelve queues is written in Java order', () => {
    const ordered = javaMessageQueueSetOrder(many());
    assert.deepEqual(
      ordered.map((q) => [q.topic, q.queueId]),
      MANY_IN_JAVA_ORDER.map(([t, i]) => [t, i]),
    );
    const expected =
      '{"clientId":"127.0.0.1@4242#1234567890","consumerGroup":"cg-order","mqSet":[' +
      MANY_IN_JAVA_ORDER.map(([t, i]) => MQ(t, i)).join(',') +
      ']}';
    assert.equal(encodeLockBatchRequestBody({ ...body, mqSet: ordered }).toString('utf8'), expected);
  });

  test('the set order depends on the table size and on insertion order within a bucket', () => {
    // Reversed insertion swaps each colliding pair; a one-slot table keeps insertion order.
    const reversed = javaMessageQueueSetOrder([...many()].reverse());
    assert.deepEqual(
      reversed.slice(2, 4).map((q) => [q.topic, q.queueId]),
      [
        ['OrderTopic', 1],
        ['TopicTest', 3],
      ],
    );
    assert.deepEqual(javaMessageQueueSetOrder([mq('T', 1), mq('T', 0)], 1), [mq('T', 1), mq('T', 0)]);
  });

  test('duplicates collapse, a missing mqSet is empty, queueId defaults to 0, 5.x fields are ignored', () => {
    const text =
      '{"clientId":"c","consumerGroup":"g","onlyThisBroker":true,"mqSet":[' +
      `${MQ('T', 1)},{"brokerName":"broker-a","topic":"T"},${MQ('T', 1)}]}`;
    assert.deepEqual(decodeLockBatchRequestBody(Buffer.from(text)).mqSet, [mq('T', 1), mq('T', 0)]);
    assert.deepEqual(decodeUnlockBatchRequestBody(Buffer.from('{"clientId":"c","consumerGroup":"g"}')), {
      consumerGroup: 'g',
      clientId: 'c',
      mqSet: [],
    });
  });

  test('malformed bodies are refused, naming the body and field', () => {
    const bad: Array<[string | undefined, RegExp]> = [
      [undefined, /LockBatchRequestBody: the body is empty/],
      ['{"clientId":"c","mqSet":[]}', /\$\.consumerGroup: missing/],
      ['{"consumerGroup":"g","mqSet":[]}', /\$\.clientId: missing/],
      ['{"clientId":"c","consumerGroup":"g","mqSet":{}}', /\$\.mqSet: not an array/],
      [
        '{"clientId":"c","consumerGroup":"g","mqSet":[{"brokerName":"b","queueId":0}]}',
        /mqSet\[0\]\.topic: missing/,
      ],
      [
        '{"clientId":"c","consumerGroup":"g","mqSet":[{"brokerName":"b","queueId":"x","topic":"T"}]}',
        /mqSet\[0\]\.queueId: not an int/,
      ],
      ['{"clientId":"c","consumerGroup":"g","mqSet":[', /LockBatchRequestBody/],
    ];
    for (const [text, message] of bad) {
      const bytes = text === undefined ? undefined : Buffer.from(text);
      assert.throws(() => decodeLockBatchRequestBody(bytes), RemotingCommandError, text);
      assert.throws(() => decodeLockBatchRequestBody(bytes), message, text);
    }
    assert.throws(() => decodeUnlockBatchRequestBody(undefined), /UnlockBatchRequestBody: the body is empty/);
  });
});

describe('LockBatchResponseBody', () => {
  test('writes and reads the official bytes, empty or not', () => {
    assert.equal(encodeLockBatchResponseBody({ lockOKMQSet: [] }).toString('utf8'), '{"lockOKMQSet":[]}');
    const text = `{"lockOKMQSet":[${MQ('TopicTest', 7)},${MQ('TopicTest', 6)},${MQ('TopicTest', 5)}]}`;
    const value = { lockOKMQSet: [mq('TopicTest', 7), mq('TopicTest', 6), mq('TopicTest', 5)] };
    assert.equal(encodeLockBatchResponseBody(value).toString('utf8'), text);
    assert.deepEqual(decodeLockBatchResponseBody(Buffer.from(text)), value);
    assert.deepEqual(decodeLockBatchResponseBody(Buffer.from('{}')), { lockOKMQSet: [] });
    assert.throws(
      () => decodeLockBatchResponseBody(Buffer.from('{"lockOKMQSet":7}')),
      /lockOKMQSet: not an array/,
    );
  });
});
