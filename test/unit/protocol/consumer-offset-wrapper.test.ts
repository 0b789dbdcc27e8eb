/**
 * consumerOffset.json and the GET_ALL_CONSUMER_OFFSET body: the official broker's compact and pretty
 * forms (bare integer keys, tab indents) read and written byte for byte.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  type ConsumerOffsetTable,
  decodeConsumerOffsetTable,
  encodeConsumerOffsetTable,
} from '../../../src/common/protocol/consumer-offset-wrapper.js';
import { goldenFile } from '../../golden-fixtures.js';

const TABLE: ConsumerOffsetTable = new Map([
  ['%RETRY%cg-golden@cg-golden', new Map([[0, 0n]])],
  [
    'TopicTest@cg-golden',
    new Map([
      [0, 118n],
      [1, 57n],
      [3, 9007199254740993n],
    ]),
  ],
]);

describe('consumer offset table', () => {
  for (const [name, pretty] of [
    ['consumerOffset.compact.json', false],
    ['consumerOffset.pretty.json', true],
    ['consumer-offset-wrapper.json', false],
  ] as const) {
    test(`${name}: read, and written byte for byte`, () => {
      const golden = goldenFile(`bodies/${name}`);
      assert.deepEqual(decodeConsumerOffsetTable(golden), TABLE);
      assert.equal(encodeConsumerOffsetTable(TABLE, { pretty }), golden.toString('utf8'));
    });
  }

  test('offsets beyond 2^53 stay exact; quoted keys read like bare ones', () => {
    const t = decodeConsumerOffsetTable('{"offsetTable":{"T@g":{"7":9223372036854775807,-1:3}}}');
    assert.deepEqual(
      t.get('T@g'),
      new Map([
        [7, 9223372036854775807n],
        [-1, 3n],
      ]),
    );
  });

  test('empty table', () => {
    assert.equal(encodeConsumerOffsetTable(new Map()), '{"offsetTable":{}}');
    assert.deepEqual(decodeConsumerOffsetTable('{}'), new Map());
  });

  test('malformed input is refused with the source named', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /the body is empty/],
      ['{"offsetTable":{"T@g":{"x":1}}}', /queue id "x" is not an int/],
      ['{"offsetTable":{"T@g":{1.5:1}}}', /queue id "1.5" is not an int/],
      ['{"offsetTable":{"T@g":{3000000000:1}}}', /queue id "3000000000" is not an int/],
      ['{"offsetTable":{"T@g":{0:"a"}}}', /not a long/],
      ['{"offsetTable":{"T@g":{0:1}', /consumerOffset\.json/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => decodeConsumerOffsetTable(text, 'consumerOffset.json'),
        (e: unknown) => e instanceof RemotingCommandError && message.test(e.message),
        text,
      );
    }
  });
});
