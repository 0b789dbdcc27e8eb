/** GroupList and the consumer id list: bodies as the 4.9.8 broker writes them (golden group-list.json). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import {
  decodeConsumerIdList,
  encodeConsumerIdList,
} from '../../../src/common/protocol/consumer-list-by-group.js';
import { decodeGroupList, encodeGroupList } from '../../../src/common/protocol/group-list.js';
import { goldenFile } from '../../golden-fixtures.js';

describe('GroupList', () => {
  const golden = goldenFile('bodies/group-list.json');

  test('the official bytes, in Java HashSet order', () => {
    assert.equal(encodeGroupList(javaHashMapOrder(['cg-golden', 'cg-other'])).toString(), golden.toString());
  });

  test('reads the official body', () => {
    assert.deepEqual(decodeGroupList(golden), ['cg-other', 'cg-golden']);
  });

  test('empty and malformed', () => {
    assert.equal(encodeGroupList([]).toString(), '{"groupList":[]}');
    assert.deepEqual(decodeGroupList(Buffer.from('{}')), []);
    assert.throws(() => decodeGroupList(Buffer.from('{"groupList":[1]}')), RemotingCommandError);
  });
});

describe('GetConsumerListByGroupResponseBody', () => {
  test('round trip in list order', () => {
    const ids = ['10.0.0.5@1#2', '10.0.0.6@3#4'];
    const body = encodeConsumerIdList(ids);
    assert.equal(body.toString(), '{"consumerIdList":["10.0.0.5@1#2","10.0.0.6@3#4"]}');
    assert.deepEqual(decodeConsumerIdList(body), ids);
  });

  test('malformed', () => {
    assert.throws(() => decodeConsumerIdList(undefined), RemotingCommandError);
    assert.throws(() => decodeConsumerIdList(Buffer.from('{"consumerIdList":"x"}')), /not an array/);
  });
});
