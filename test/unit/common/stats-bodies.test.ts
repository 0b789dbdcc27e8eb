/**
 * The admin stats bodies against the official bytes (test/fixtures/golden, written by fastjson 1.2.69
 * through the 4.9.8 beans): TopicStatsTable, ConsumeStats, BrokerStatsData and the runtime-info
 * KVTable. Each is encoded from the values the fixture was built from, put in the fixture's insertion
 * order and arranged as Java's HashMap iterates them, and compared byte for byte; then decoded.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeBrokerStatsData,
  encodeBrokerStatsData,
} from '../../../src/common/protocol/broker-stats-data.js';
import {
  computeTotalDiff,
  decodeConsumeStats,
  encodeConsumeStats,
  type OffsetWrapper,
} from '../../../src/common/protocol/consume-stats.js';
import {
  decodeConsumeStatsList,
  encodeConsumeStatsList,
} from '../../../src/common/protocol/consume-stats-list.js';
import { decodeKVTable, encodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { javaMessageQueueMapOrder } from '../../../src/common/protocol/message-queue-map.js';
import {
  decodeTopicStatsTable,
  encodeTopicStatsTable,
  type TopicOffset,
} from '../../../src/common/protocol/topic-stats-table.js';
import { goldenFile, goldenManifest } from '../../golden-fixtures.js';

const mq = (topic: string, queueId: number) => new MessageQueue(topic, 'broker-a', queueId);

function golden(name: string): Buffer {
  const g = goldenManifest().bodies.find((b) => b.name === name);
  assert.ok(g, `fixture ${name}`);
  return goldenFile(g.file);
}

/** Queues as `topic/queueId`, for readable comparisons. */
const names = (entries: ReadonlyArray<readonly [MessageQueue, unknown]>) =>
  entries.map(([q]) => `${q.topic}/${q.queueId}`);

function assertRejects(decode: (b: Buffer) => unknown, bytes: Buffer, other: Buffer): void {
  assert.throws(() => decode(Buffer.concat([bytes, other])), RemotingCommandError, 'two bodies back to back');
  for (const n of [1, Math.floor(bytes.length / 2), bytes.length - 1]) {
    assert.throws(() => decode(bytes.subarray(0, n)), RemotingCommandError, `cut to ${n} bytes`);
  }
}

describe('TopicStatsTable', () => {
  const bytes = golden('topic-stats-table');
  const inserted: Array<[MessageQueue, TopicOffset]> = [0, 1].map((q) => [
    mq('TopicTest', q),
    { minOffset: BigInt(q), maxOffset: 1000n + BigInt(q), lastUpdateTimestamp: 1700000000000n + BigInt(q) },
  ]);

  test('encodes the fixture byte for byte (queue 1 before queue 0: Java HashMap order)', () => {
    const ordered = javaMessageQueueMapOrder(inserted);
    assert.deepEqual(names(ordered), ['TopicTest/1', 'TopicTest/0']);
    assert.equal(encodeTopicStatsTable({ offsetTable: ordered }).toString('hex'), bytes.toString('hex'));
  });

  test('decodes the fixture in wire order', () => {
    const t = decodeTopicStatsTable(bytes);
    assert.deepEqual(names(t.offsetTable), ['TopicTest/1', 'TopicTest/0']);
    assert.deepEqual(t.offsetTable[1], inserted[0]);
    assert.deepEqual(t.offsetTable[0], inserted[1]);
  });

  test('annotated bytes of a one-queue table', () => {
    const body = encodeTopicStatsTable({
      offsetTable: [[mq('T', 3), { minOffset: 1n, maxOffset: 2n, lastUpdateTimestamp: -1n }]],
    });
    const expected =
      '{"offsetTable":{' +
      // the key: the MessageQueue bean itself, fields sorted, written bare
      '{"brokerName":"broker-a","queueId":3,"topic":"T"}:' +
      // the TopicOffset bean, fields sorted
      '{"lastUpdateTimestamp":-1,"maxOffset":2,"minOffset":1}' +
      '}}';
    assert.equal(body.toString('utf8'), expected);
    assert.equal(encodeTopicStatsTable({ offsetTable: [] }).toString(), '{"offsetTable":{}}');
    assert.deepEqual(decodeTopicStatsTable(Buffer.from('{"offsetTable":{}}')).offsetTable, []);
    assert.deepEqual(decodeTopicStatsTable(Buffer.from('{}')).offsetTable, []);
  });

  test('malformed bodies are refused with the field named', () => {
    assertRejects(decodeTopicStatsTable, bytes, golden('consume-stats'));
    assert.throws(() => decodeTopicStatsTable(undefined), /TopicStatsTable: the body is empty/);
    assert.throws(
      () => decodeTopicStatsTable(Buffer.from('{"offsetTable":{"x":{"minOffset":1}}}')),
      /TopicStatsTable: .*offsetTable: key "x" is not a MessageQueue/,
    );
    assert.throws(
      () => decodeTopicStatsTable(Buffer.from('{"offsetTable":{{"queueId":1,"topic":"t"}:{}}}')),
      /brokerName: missing/,
    );
    assert.throws(
      () =>
        decodeTopicStatsTable(
          Buffer.from('{"offsetTable":{{"brokerName":"b","queueId":1,"topic":"t"}:{"maxOffset":"x"}}}'),
        ),
      /maxOffset: not a long/,
    );
  });

  test('keys written as JSON text (the standard form) read the same', () => {
    const text =
      '{"offsetTable":{"{\\"brokerName\\":\\"b\\",\\"queueId\\":2,\\"topic\\":\\"t\\"}":{"maxOffset":9}}}';
    const t = decodeTopicStatsTable(Buffer.from(text));
    assert.deepEqual(t.offsetTable, [
      [new MessageQueue('t', 'b', 2), { minOffset: 0n, maxOffset: 9n, lastUpdateTimestamp: 0n }],
    ]);
  });
});

describe('ConsumeStats', () => {
  test('consume-stats: encodes byte for byte and decodes', () => {
    const bytes = golden('consume-stats');
    const inserted: Array<[MessageQueue, OffsetWrapper]> = [0, 1].map((q) => [
      mq('TopicTest', q),
      {
        brokerOffset: 120n + BigInt(q),
        consumerOffset: 118n + BigInt(q),
        lastTimestamp: 1700000000000n + BigInt(q),
      },
    ]);
    const body = encodeConsumeStats({ offsetTable: javaMessageQueueMapOrder(inserted), consumeTps: 12.5 });
    assert.equal(body.toString('hex'), bytes.toString('hex'));
    const s = decodeConsumeStats(bytes);
    assert.equal(s.consumeTps, 12.5);
    assert.deepEqual(names(s.offsetTable), ['TopicTest/1', 'TopicTest/0']);
    assert.equal(computeTotalDiff(s), 4n);
  });

  test('consume-stats.many: 16 queues of two topics, resized table, several per bucket', () => {
    const bytes = golden('consume-stats.many');
    const inserted: Array<[MessageQueue, OffsetWrapper]> = ['TopicTest', 'TopicOrder'].flatMap((topic) =>
      [0, 1, 2, 3, 4, 5, 6, 7].map((q): [MessageQueue, OffsetWrapper] => [
        mq(topic, q),
        {
          brokerOffset: BigInt(1000 * q + 7),
          consumerOffset: BigInt(1000 * q),
          lastTimestamp: q === 0 ? 0n : 1700000000000n + BigInt(q),
        },
      ]),
    );
    const ordered = javaMessageQueueMapOrder(inserted);
    const body = encodeConsumeStats({ offsetTable: ordered, consumeTps: 1 / 3 });
    assert.equal(body.toString('utf8'), bytes.toString('utf8'));
    const s = decodeConsumeStats(bytes);
    assert.deepEqual(names(s.offsetTable), names(ordered));
    assert.equal(s.consumeTps, 1 / 3);
    assert.equal(computeTotalDiff(s), 16n * 7n);
  });

  test('annotated bytes; consumeTps is always written as a double', () => {
    const body = encodeConsumeStats({
      offsetTable: [[mq('T', 0), { brokerOffset: 5n, consumerOffset: 0n, lastTimestamp: 0n }]],
      consumeTps: 0,
    });
    const expected =
      '{"consumeTps":0.0,' + // a Java double: 0.0, never 0
      '"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:' +
      '{"brokerOffset":5,"consumerOffset":0,"lastTimestamp":0}}}';
    assert.equal(body.toString('utf8'), expected);
  });

  test('a queue put twice keeps its first place and its last value (HashMap.put)', () => {
    const a = { brokerOffset: 1n, consumerOffset: 0n, lastTimestamp: 0n };
    const b = { brokerOffset: 2n, consumerOffset: 0n, lastTimestamp: 0n };
    const ordered = javaMessageQueueMapOrder([
      [mq('T', 0), a],
      [mq('T', 1), a],
      [mq('T', 0), b],
    ]);
    assert.equal(ordered.length, 2);
    assert.equal(ordered.find(([q]) => q.queueId === 0)?.[1], b);
  });

  test('malformed bodies are refused', () => {
    const bytes = golden('consume-stats');
    assertRejects(decodeConsumeStats, bytes, golden('topic-stats-table'));
    assert.throws(() => decodeConsumeStats(Buffer.from('{"consumeTps":"fast"}')), /consumeTps: not a double/);
    assert.deepEqual(decodeConsumeStats(Buffer.from('{}')), { offsetTable: [], consumeTps: 0 });
  });
});

describe('BrokerStatsData', () => {
  const bytes = golden('broker-stats-data');
  const data = {
    statsMinute: { sum: 120n, tps: 2, avgpt: 1.5 },
    statsHour: { sum: 7200n, tps: 1 / 3, avgpt: 0 },
    statsDay: { sum: 9007199254740993n, tps: 1.0e-4, avgpt: 12345678.9 },
  };

  test('encodes the fixture byte for byte and decodes it', () => {
    assert.equal(encodeBrokerStatsData(data).toString('hex'), bytes.toString('hex'));
    assert.deepEqual(decodeBrokerStatsData(bytes), data);
  });

  test('annotated bytes: beans sorted, doubles as Java writes them', () => {
    const zero = { sum: 0n, tps: 0, avgpt: 0 };
    const body = encodeBrokerStatsData({ statsMinute: zero, statsHour: zero, statsDay: zero });
    const item = '{"avgpt":0.0,"sum":0,"tps":0.0}';
    assert.equal(body.toString(), `{"statsDay":${item},"statsHour":${item},"statsMinute":${item}}`);
  });

  test('malformed bodies are refused; missing items read as zeros', () => {
    assertRejects(decodeBrokerStatsData, bytes, golden('kv-table'));
    assert.throws(
      () => decodeBrokerStatsData(Buffer.from('{"statsDay":{"tps":[]}}')),
      /statsDay\.tps: not a double/,
    );
    assert.deepEqual(decodeBrokerStatsData(Buffer.from('{}')).statsHour, { sum: 0n, tps: 0, avgpt: 0 });
  });
});

describe('KVTable of GET_BROKER_RUNTIME_INFO', () => {
  test('48 keys put into new HashMap<>(64) in prepareRuntimeInfo order: byte for byte', () => {
    const g = goldenManifest().bodies.find((b) => b.name === 'kv-table.runtime-info');
    assert.ok(g);
    const keys = /in the order (\S+); each value/.exec(g.content)?.[1]?.split(',') ?? [];
    assert.equal(keys.length, 48);
    const table = new Map(
      javaHashMapOrder(keys, { initialCapacity: 64 }).map((k) => [k, String(keys.indexOf(k))]),
    );
    const bytes = goldenFile(g.file);
    assert.equal(encodeKVTable(table).toString('utf8'), bytes.toString('utf8'));
    assert.deepEqual([...decodeKVTable(bytes).keys()], [...table.keys()]);
  });
});

describe('ConsumeStatsList (GET_BROKER_CONSUME_STATS body)', () => {
  const goldenStats = {
    offsetTable: javaMessageQueueMapOrder<OffsetWrapper>(
      [0, 1].map((q) => [
        mq('TopicTest', q),
        {
          brokerOffset: 120n + BigInt(q),
          consumerOffset: 118n + BigInt(q),
          lastTimestamp: 1700000000000n + BigInt(q),
        },
      ]),
    ),
    consumeTps: 12.5,
  };

  test('consume-stats-list: encodes byte for byte and decodes', () => {
    const bytes = golden('consume-stats-list');
    const body = encodeConsumeStatsList({
      brokerAddr: '127.0.0.1:10911',
      consumeStatsList: [
        ['cg-golden', [goldenStats]],
        ['cg-other', []],
      ],
      totalDiff: 4n,
    });
    assert.equal(body.toString('utf8'), bytes.toString('utf8'));
    const list = decodeConsumeStatsList(bytes);
    assert.equal(list.brokerAddr, '127.0.0.1:10911');
    assert.equal(list.totalDiff, 4n);
    assert.deepEqual(
      list.consumeStatsList.map(([group, stats]) => [group, stats.length]),
      [
        ['cg-golden', 1],
        ['cg-other', 0],
      ],
    );
    const first = list.consumeStatsList[0]?.[1][0];
    assert.ok(first);
    assert.deepEqual(names(first.offsetTable), ['TopicTest/1', 'TopicTest/0']);
    assert.equal(first.consumeTps, 12.5);
  });

  test('malformed bodies are refused with the field named', () => {
    const bytes = golden('consume-stats-list');
    assertRejects(decodeConsumeStatsList, bytes, golden('consume-stats'));
    assert.throws(
      () => decodeConsumeStatsList(Buffer.from('{"consumeStatsList":[{"g":{"consumeTps":1}}]}')),
      RemotingCommandError,
    );
    assert.throws(() => decodeConsumeStatsList(Buffer.from('{"totalDiff":"x"}')), /totalDiff: not a long/);
  });
});
