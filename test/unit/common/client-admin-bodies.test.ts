/**
 * ResetOffsetBody, ResetOffsetBodyForC and GetConsumerStatusBody against the bytes the official
 * 4.9.8 beans write (golden fixtures), on annotated bytes, and on malformed input.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeGetConsumerStatusBody,
  encodeGetConsumerStatusBody,
} from '../../../src/common/protocol/get-consumer-status-body.js';
import { javaMessageQueueMapOrder } from '../../../src/common/protocol/message-queue-map.js';
import {
  decodeResetOffsetBody,
  decodeResetOffsetBodyForC,
  encodeResetOffsetBody,
  encodeResetOffsetBodyForC,
} from '../../../src/common/protocol/reset-offset-body.js';
import { goldenFile, goldenManifest } from '../../golden-fixtures.js';

const mq = (queueId: number, topic = 'TopicTest') => new MessageQueue(topic, 'broker-a', queueId);

function golden(name: string): Buffer {
  const g = goldenManifest().bodies.find((b) => b.name === name);
  assert.ok(g, `fixture ${name}`);
  return goldenFile(g.file);
}

/** Queues as `queueId=offset`, for readable comparisons. */
const table = (entries: ReadonlyArray<readonly [MessageQueue, bigint]>) =>
  entries.map(([q, o]) => `${q.topic}/${q.brokerName}/${q.queueId}=${o}`);

function assertRejects(decode: (b: Buffer) => unknown, bytes: Buffer, other: Buffer): void {
  assert.throws(() => decode(Buffer.concat([bytes, other])), RemotingCommandError, 'two bodies back to back');
  for (const n of [1, Math.floor(bytes.length / 2), bytes.length - 1]) {
    assert.throws(() => decode(bytes.subarray(0, n)), RemotingCommandError, `cut to ${n} bytes`);
  }
}

// What Broker2Client.resetOffset puts into its HashMap, queue by queue.
const RESET: Array<[MessageQueue, bigint]> = [
  [mq(0), 0n],
  [mq(1), 57n],
  [mq(2), 9007199254740993n],
  [mq(3), 118n],
];

describe('ResetOffsetBody', () => {
  const bytes = golden('reset-offset-body');

  test('reset-offset-body: the HashMap filled queue 0..3 encodes byte for byte and decodes', () => {
    const ordered = javaMessageQueueMapOrder(RESET);
    assert.equal(encodeResetOffsetBody({ offsetTable: ordered }).toString('hex'), bytes.toString('hex'));
    const decoded = decodeResetOffsetBody(bytes);
    assert.deepEqual(table(decoded.offsetTable), table(ordered));
    // 2^53 + 1 survives as a bigint.
    assert.equal(decoded.offsetTable.find(([q]) => q.queueId === 2)?.[1], 9007199254740993n);
  });

  test('annotated bytes', () => {
    const body = encodeResetOffsetBody({ offsetTable: [[mq(0, 'T'), 5n]] });
    const expected =
      '{"offsetTable":{' +
      '{"brokerName":"broker-a","queueId":0,"topic":"T"}' + // the MessageQueue as a bare key
      ':5}}'; // the Long offset
    assert.equal(body.toString('utf8'), expected);
    assert.equal(encodeResetOffsetBody({ offsetTable: [] }).toString('utf8'), '{"offsetTable":{}}');
  });

  test('keys written as JSON text (the standard form) read the same; absent table is empty', () => {
    const text = '{"offsetTable":{"{\\"brokerName\\":\\"b\\",\\"queueId\\":2,\\"topic\\":\\"t\\"}":9}}';
    assert.deepEqual(decodeResetOffsetBody(Buffer.from(text)).offsetTable, [
      [new MessageQueue('t', 'b', 2), 9n],
    ]);
    assert.deepEqual(decodeResetOffsetBody(Buffer.from('{}')).offsetTable, []);
  });

  test('malformed bodies are refused with the field named', () => {
    assertRejects(decodeResetOffsetBody, bytes, golden('consume-stats'));
    assert.throws(() => decodeResetOffsetBody(undefined), /ResetOffsetBody: the body is empty/);
    assert.throws(
      () =>
        decodeResetOffsetBody(
          Buffer.from('{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:"x"}}'),
        ),
      /offsetTable\{value 0\}: not a long/,
    );
    assert.throws(
      () => decodeResetOffsetBody(Buffer.from('{"offsetTable":{{"queueId":0,"topic":"t"}:1}}')),
      /brokerName: missing/,
    );
  });
});

describe('ResetOffsetBodyForC', () => {
  const bytes = golden('reset-offset-body-for-c');

  test('reset-offset-body-for-c: the same table as a list in the HashMap order', () => {
    const ordered = javaMessageQueueMapOrder(RESET);
    assert.equal(encodeResetOffsetBodyForC(ordered).toString('hex'), bytes.toString('hex'));
    assert.deepEqual(table(decodeResetOffsetBodyForC(bytes).offsetTable), table(ordered));
  });

  test('annotated bytes: MessageQueueForC fields sorted, offset among them', () => {
    const expected =
      '{"offsetTable":[' +
      '{"brokerName":"broker-a","offset":7,"queueId":1,"topic":"T"}' + // bean fields sorted by name
      ']}';
    assert.equal(encodeResetOffsetBodyForC([[mq(1, 'T'), 7n]]).toString('utf8'), expected);
  });

  test('malformed bodies are refused', () => {
    assertRejects(decodeResetOffsetBodyForC, bytes, golden('reset-offset-body'));
    assert.throws(
      () => decodeResetOffsetBodyForC(Buffer.from('{"offsetTable":[{"brokerName":"b","offset":1}]}')),
      /topic: missing/,
    );
    assert.throws(() => decodeResetOffsetBodyForC(Buffer.from('{"offsetTable":{}}')), /not an array/);
  });
});

describe('GetConsumerStatusBody', () => {
  const fromClient = golden('get-consumer-status-body.client');
  const fromBroker = golden('get-consumer-status-body.broker');
  const C1 = '127.0.0.1@4242#1234567890';
  const C2 = '127.0.0.2@4243#1234567891';

  test('get-consumer-status-body.client: a consumer answer, messageQueueTable only', () => {
    const ordered = javaMessageQueueMapOrder<bigint>([
      [mq(0), 100n],
      [mq(1), 101n],
      [mq(2), 102n],
    ]);
    const body = encodeGetConsumerStatusBody({ messageQueueTable: ordered, consumerTable: [] });
    assert.equal(body.toString('hex'), fromClient.toString('hex'));
    const decoded = decodeGetConsumerStatusBody(fromClient);
    assert.deepEqual(table(decoded.messageQueueTable), table(ordered));
    assert.deepEqual(decoded.consumerTable, []);
  });

  test('get-consumer-status-body.broker: the broker answer, tables by clientId', () => {
    const t1 = javaMessageQueueMapOrder<bigint>([
      [mq(0), 100n],
      [mq(1), 101n],
    ]);
    const t2: Array<[MessageQueue, bigint]> = [[mq(2), 9007199254740993n]];
    const byClient = new Map([
      [C1, t1],
      [C2, t2],
    ]);
    const consumerTable = javaHashMapOrder([C1, C2]).map((id) => [id, byClient.get(id) ?? []] as const);
    const body = encodeGetConsumerStatusBody({ messageQueueTable: [], consumerTable });
    assert.equal(body.toString('hex'), fromBroker.toString('hex'));
    const decoded = decodeGetConsumerStatusBody(fromBroker);
    assert.deepEqual(decoded.messageQueueTable, []);
    assert.deepEqual(
      decoded.consumerTable.map(([id, t]) => [id, table(t)]),
      [
        [C2, table(t2)],
        [C1, table(t1)],
      ],
    );
  });

  test('annotated bytes: both tables always written', () => {
    const body = encodeGetConsumerStatusBody({
      messageQueueTable: [],
      consumerTable: [['c1', [[mq(0, 'T'), 3n]]]],
    });
    const expected =
      '{"consumerTable":{"c1":' + // clientId, a String key
      '{{"brokerName":"broker-a","queueId":0,"topic":"T"}:3}},' + // that client's table
      '"messageQueueTable":{}}'; // empty, never left out (initialised HashMap)
    assert.equal(body.toString('utf8'), expected);
  });

  test('absent tables read as empty; malformed bodies are refused', () => {
    assert.deepEqual(decodeGetConsumerStatusBody(Buffer.from('{}')), {
      messageQueueTable: [],
      consumerTable: [],
    });
    assertRejects(decodeGetConsumerStatusBody, fromClient, fromBroker);
    assert.throws(
      () => decodeGetConsumerStatusBody(Buffer.from('{"consumerTable":{"c":5}}')),
      /not an object/,
    );
    assert.throws(
      () =>
        decodeGetConsumerStatusBody(
          Buffer.from('{"messageQueueTable":{{"brokerName":"b","queueId":"x","topic":"t"}:1}}'),
        ),
      /queueId: not an int/,
    );
  });
});
