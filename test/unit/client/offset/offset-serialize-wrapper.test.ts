/**
 * The broadcasting consumer's offsets.json (OffsetSerializeWrapper) against the files the official
 * 4.9.8 classes write: both forms read, and written back byte for byte, so the Java client reads
 * ours as its own. Malformed files fail with a typed error naming the file.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../../src/common/errors.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import {
  decodeOffsetSerializeWrapper,
  encodeOffsetSerializeWrapper,
} from '../../../../src/common/protocol/offset-serialize-wrapper.js';
import { goldenFile } from '../../../golden-fixtures.js';

/** The fixture's table in the order BodyFixtures put it (the manifest's `content`). */
const PUT_ORDER: Array<[MessageQueue, bigint]> = [
  [new MessageQueue('TopicTest', 'broker-a', 0), 118n],
  [new MessageQueue('TopicTest', 'broker-a', 1), 0n],
  [new MessageQueue('TopicTest', 'broker-a', 2), 9007199254740993n],
  [new MessageQueue('TopicTest', 'broker-b', 0), 57n],
  [new MessageQueue('TopicOrder', 'broker-a', 3), 3n],
];

const keyed = (entries: ReadonlyArray<readonly [MessageQueue, bigint]>) =>
  entries.map(([mq, offset]) => `${mq.key}=${offset}`);

describe('OffsetSerializeWrapper (offsets.json)', () => {
  for (const [file, pretty] of [
    ['offset-serialize-wrapper.pretty.json', true],
    ['offset-serialize-wrapper.json', false],
  ] as const) {
    test(`${file}: read, and written byte for byte from the put order`, () => {
      const golden = goldenFile(`bodies/${file}`);
      const read = decodeOffsetSerializeWrapper(golden);
      assert.deepEqual(keyed(read).sort(), keyed(PUT_ORDER).sort());
      assert.equal(encodeOffsetSerializeWrapper(PUT_ORDER, { pretty }), golden.toString('utf8'));
      // Written from what was read (file order) gives the same bytes too.
      assert.equal(encodeOffsetSerializeWrapper(read, { pretty }), golden.toString('utf8'));
    });
  }

  test('the pretty file is what the client writes: tab indents, queue objects as bare keys', () => {
    const text = encodeOffsetSerializeWrapper([[new MessageQueue('T', 'b', 1), 5n]], { pretty: true });
    assert.equal(
      text,
      '{\n\t"offsetTable":{{\n\t\t\t"brokerName":"b",\n\t\t\t"queueId":1,\n\t\t\t"topic":"T"\n\t\t}:5\n\t}\n}',
    );
    assert.deepEqual(keyed(decodeOffsetSerializeWrapper(text)), keyed([[new MessageQueue('T', 'b', 1), 5n]]));
  });

  test('an empty table, and a file without offsetTable, read as no offsets', () => {
    assert.equal(encodeOffsetSerializeWrapper([], { pretty: true }), '{\n\t"offsetTable":{}\n}');
    assert.deepEqual(decodeOffsetSerializeWrapper('{"offsetTable":{}}'), []);
    assert.deepEqual(decodeOffsetSerializeWrapper('{}'), []);
    assert.deepEqual(decodeOffsetSerializeWrapper('{"offsetTable":null}'), []);
  });

  test('a queue given twice keeps its first place and its last offset', () => {
    const a = new MessageQueue('T', 'b', 0);
    const b = new MessageQueue('T', 'b', 1);
    const text = `{"offsetTable":{${[
      [a, 1],
      [b, 2],
      [a, 3],
    ]
      .map(([q, o]) => `{"brokerName":"b","queueId":${(q as MessageQueue).queueId},"topic":"T"}:${o}`)
      .join(',')}}}`;
    assert.deepEqual(
      keyed(decodeOffsetSerializeWrapper(text)),
      keyed([
        [a, 3n],
        [b, 2n],
      ]),
    );
    assert.equal(
      encodeOffsetSerializeWrapper([
        [a, 1n],
        [b, 2n],
        [a, 3n],
      ]),
      encodeOffsetSerializeWrapper([
        [a, 3n],
        [b, 2n],
      ]),
    );
  });

  test('standard-form keys (the queue as a JSON string) read like bare ones', () => {
    const text = JSON.stringify({ offsetTable: { '{"brokerName":"b","queueId":7,"topic":"T"}': 9 } });
    assert.deepEqual(keyed(decodeOffsetSerializeWrapper(text)), keyed([[new MessageQueue('T', 'b', 7), 9n]]));
  });

  test('malformed files fail with RemotingCommandError naming the file', () => {
    const bad = [
      '',
      '{"offsetTable":{',
      'null',
      '[]',
      '{"offsetTable":[]}',
      '{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:"x"}}',
      '{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:null}}',
      '{"offsetTable":{{"queueId":0,"topic":"T"}:1}}',
      '{"offsetTable":{{"brokerName":"b","queueId":1.5,"topic":"T"}:1}}',
      '{"offsetTable":{"not a queue":1}}',
    ];
    for (const text of bad) {
      assert.throws(
        () => decodeOffsetSerializeWrapper(text, '/tmp/x/offsets.json'),
        (e: unknown) => e instanceof RemotingCommandError && e.message.includes('/tmp/x/offsets.json'),
        JSON.stringify(text),
      );
    }
  });
});
