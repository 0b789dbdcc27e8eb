/** TopicList against the official bytes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { decodeTopicList, encodeTopicList } from '../../../src/common/protocol/topic-list.js';
import { goldenFile } from '../../golden-fixtures.js';

describe('TopicList (golden)', () => {
  test('without brokerAddr: decodes and re-encodes byte for byte', () => {
    const bytes = goldenFile('bodies/topic-list.json');
    const list = decodeTopicList(bytes);
    assert.deepEqual(list, {
      topicList: ['%RETRY%cg-golden', 'TopicTest', 'TopicOrder', 'TBW102'],
      brokerAddr: undefined,
    });
    assert.equal(encodeTopicList(list).toString('hex'), bytes.toString('hex'));
    // The fixture put TopicTest, TopicOrder, %RETRY%cg-golden, TBW102 into its HashSet.
    const inserted = ['TopicTest', 'TopicOrder', '%RETRY%cg-golden', 'TBW102'];
    assert.equal(
      encodeTopicList({ topicList: javaHashMapOrder(inserted) }).toString('hex'),
      bytes.toString('hex'),
    );
  });

  test('with brokerAddr: decodes and re-encodes byte for byte', () => {
    const bytes = goldenFile('bodies/topic-list.with-broker-addr.json');
    const list = decodeTopicList(bytes);
    assert.deepEqual(list, { topicList: ['TopicTest'], brokerAddr: '127.0.0.1:10911' });
    assert.equal(encodeTopicList(list).toString('hex'), bytes.toString('hex'));
  });

  test('empty and malformed lists', () => {
    assert.equal(encodeTopicList({ topicList: [] }).toString(), '{"topicList":[]}');
    assert.deepEqual(decodeTopicList(Buffer.from('{}')), { topicList: [], brokerAddr: undefined });
    assert.throws(() => decodeTopicList(Buffer.from('{"topicList":[1]}')), /topicList\[0\]: not a string/);
    assert.throws(() => decodeTopicList(Buffer.from('{"topicList":{}}')), /not an array/);
    const bytes = goldenFile('bodies/topic-list.json');
    assert.throws(() => decodeTopicList(Buffer.concat([bytes, bytes])), RemotingCommandError);
  });
});
