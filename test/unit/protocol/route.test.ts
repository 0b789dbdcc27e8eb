import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  decodeClusterInfo,
  decodeTopicRouteData,
  encodeClusterInfo,
  encodeTopicRouteData,
} from '../../../src/common/protocol/route.js';
import { goldenFile } from '../../golden-fixtures.js';

describe('TopicRouteData (golden, official 4.9.8 fastjson)', () => {
  for (const form of ['fastjson', 'standard'] as const) {
    const file = `bodies/topic-route.${form === 'fastjson' ? 'default' : 'standard'}.json`;
    test(`decodes and re-encodes the ${form} form byte for byte`, () => {
      const bytes = goldenFile(file);
      const route = decodeTopicRouteData(bytes);
      assert.equal(route.orderTopicConf, 'broker-a:4;broker-b:4');
      assert.deepEqual(
        route.brokerDatas.map((b) => [b.brokerName, b.cluster, [...b.brokerAddrs]]),
        [
          [
            'broker-a',
            'DefaultCluster',
            [
              [0, '127.0.0.1:10911'],
              [1, '127.0.0.2:10911'],
            ],
          ],
          [
            'broker-b',
            'DefaultCluster',
            [
              [0, '127.0.0.3:10911'],
              [1, '127.0.0.4:10911'],
            ],
          ],
        ],
      );
      assert.deepEqual(route.queueDatas[1], {
        brokerName: 'broker-b',
        readQueueNums: 4,
        writeQueueNums: 4,
        perm: 6,
        topicSysFlag: 0,
      });
      assert.equal(encodeTopicRouteData(route, form).toString('utf8'), bytes.toString('utf8'));
    });
  }

  test('accepts the pre-4.9 topicSynFlag spelling', () => {
    const route = decodeTopicRouteData(
      Buffer.from(
        '{"brokerDatas":[],"queueDatas":[{"brokerName":"b","perm":6,"readQueueNums":1,"topicSynFlag":1,"writeQueueNums":1}]}',
      ),
    );
    assert.equal(route.queueDatas[0]?.topicSysFlag, 1);
  });

  for (const [name, text] of [
    ['an empty body', ''],
    ['a missing brokerName', '{"queueDatas":[{"perm":6,"readQueueNums":1,"writeQueueNums":1}]}'],
    ['a string perm', '{"queueDatas":[{"brokerName":"b","perm":"6","readQueueNums":1,"writeQueueNums":1}]}'],
    ['a non-numeric broker id', '{"brokerDatas":[{"brokerAddrs":{"x":"a"},"brokerName":"b","cluster":"c"}]}'],
    ['an array body', '[1]'],
  ] as const) {
    test(`refuses ${name} with a typed error naming the field`, () => {
      assert.throws(() => decodeTopicRouteData(Buffer.from(text)), RemotingCommandError);
    });
  }
});

describe('ClusterInfo (golden, official 4.9.8 fastjson)', () => {
  test('decodes the bare-key form and re-encodes it byte for byte, keeping HashMap order', () => {
    const bytes = goldenFile('bodies/cluster-info.json');
    const info = decodeClusterInfo(bytes);
    assert.deepEqual([...info.brokerAddrTable.keys()], ['broker-b', 'broker-a']);
    assert.equal(info.brokerAddrTable.get('broker-a')?.brokerAddrs.get(1), '127.0.0.2:10911');
    assert.deepEqual(info.clusterAddrTable.get('DefaultCluster'), ['broker-b', 'broker-a']);
    assert.equal(encodeClusterInfo(info).toString('utf8'), bytes.toString('utf8'));
  });
});
