import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  decodeQueryConsumeQueueResponseBody,
  encodeQueryConsumeQueueResponseBody,
} from '../../../src/common/protocol/query-consume-queue-body.js';
import { ConsumerFilterData, consumerFilterDataJson } from '../../../src/filter/consumer-filter-manager.js';
import { FilterFactory } from '../../../src/filter/filter-factory.js';

// Written by the 4.9.8 classes: QueryConsumeQueueResponseBody.encode() with a TAG subscription
// (FilterAPI.build("T", "TagA || TagB", "TAG"), subVersion 1700000000000) and one ConsumeQueueData,
// then one with only the bounds; JSON.toJSONString(filterData, true) of
// ConsumerFilterManager.build("T", "g", "a > 1", "SQL92", 1700000000000L) born at 1700000000123.
const WITH_GROUP =
  '{"filterData":"null","maxQueueIndex":5,"minQueueIndex":0,"queueData":[{"eval":false,"physicOffset":1234,' +
  '"physicSize":200,"tagsCode":2598919}],"subscriptionData":{"classFilterMode":false,"codeSet":[2598919,2598920],' +
  '"expressionType":"TAG","subString":"TagA || TagB","subVersion":1700000000000,"tagsSet":["TagA","TagB"],' +
  '"topic":"T"}}';
const BOUNDS_ONLY = '{"maxQueueIndex":0,"minQueueIndex":0}';
const FILTER_DATA_PRETTY =
  '{\n\t"bornTime":1700000000123,\n\t"clientVersion":1700000000000,\n\t"consumerGroup":"g",\n\t"dead":false,\n' +
  '\t"deadTime":0,\n\t"expression":"a > 1",\n\t"expressionType":"SQL92",\n\t"topic":"T"\n}';

describe('QueryConsumeQueueResponseBody (QUERY_CONSUME_QUEUE body)', () => {
  const withGroup = {
    subscriptionData: {
      topic: 'T',
      subString: 'TagA || TagB',
      tagsSet: ['TagA', 'TagB'],
      codeSet: [2598919, 2598920],
      subVersion: 1700000000000n,
      expressionType: 'TAG',
      classFilterMode: false,
    },
    filterData: 'null',
    queueData: [{ physicOffset: 1234n, physicSize: 200, tagsCode: 2598919n, eval: false }],
    maxQueueIndex: 5n,
    minQueueIndex: 0n,
  };

  test('generate: the 4.9.8 bytes', () => {
    assert.equal(encodeQueryConsumeQueueResponseBody(withGroup).toString('utf8'), WITH_GROUP);
    assert.equal(
      encodeQueryConsumeQueueResponseBody({ maxQueueIndex: 0n, minQueueIndex: 0n }).toString('utf8'),
      BOUNDS_ONLY,
    );
  });

  test('parse: the 4.9.8 bytes read back', () => {
    const b = decodeQueryConsumeQueueResponseBody(Buffer.from(WITH_GROUP));
    assert.deepEqual(b.queueData, [
      {
        physicOffset: 1234n,
        physicSize: 200,
        tagsCode: 2598919n,
        eval: false,
        extendDataJson: undefined,
        bitMap: undefined,
        msg: undefined,
      },
    ]);
    assert.equal(b.subscriptionData?.subString, 'TagA || TagB');
    assert.equal(b.filterData, 'null');
    assert.equal(b.maxQueueIndex, 5n);
    const bounds = decodeQueryConsumeQueueResponseBody(Buffer.from(BOUNDS_ONLY));
    assert.equal(bounds.queueData, undefined);
    assert.equal(bounds.subscriptionData, undefined);
  });

  test('bad bodies are refused with RemotingCommandError', () => {
    for (const body of [
      undefined,
      Buffer.from('{"queueData":[{"physicSize":"x"}]}'),
      Buffer.from('{"maxQueueIndex":1'),
    ]) {
      assert.throws(() => decodeQueryConsumeQueueResponseBody(body), RemotingCommandError);
    }
  });
});

describe('ConsumerFilterData as queryCq shows it', () => {
  test('pretty fastjson with the dead property, as JSON.toJSONString(filterData, true)', () => {
    const compiled = new FilterFactory().compile('SQL92', 'a > 1');
    const data = new ConsumerFilterData('g', 'T', 'a > 1', 'SQL92', compiled, 1700000000123, 1700000000000n);
    assert.equal(consumerFilterDataJson(data), FILTER_DATA_PRETTY);
    assert.equal(consumerFilterDataJson(undefined), 'null');
  });
});
