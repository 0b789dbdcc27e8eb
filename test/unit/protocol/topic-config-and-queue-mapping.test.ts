import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  decodeTopicConfigAndQueueMapping,
  encodeTopicConfigAndQueueMapping,
} from '../../../src/common/protocol/topic-config-and-queue-mapping.js';

// Written by the 5.5.0 classes: JSONObject.toJSONString(new TopicConfigAndQueueMapping(config, null)),
// as AdminBrokerProcessor.getTopicConfig answers, for a topic created without attributes.
const V5_TOPIC_A =
  '{"attributes":{},"liteTopicExpiration":-1,"order":false,"perm":4,"readQueueNums":4,' +
  '"topicFilterType":"MULTI_TAG","topicMessageType":"NORMAL","topicName":"TopicA","topicSysFlag":1,' +
  '"writeQueueNums":4}';
const V5_DEFAULTS =
  '{"attributes":{},"liteTopicExpiration":-1,"order":false,"perm":6,"readQueueNums":16,' +
  '"topicFilterType":"SINGLE_TAG","topicMessageType":"NORMAL","topicName":"T","topicSysFlag":0,' +
  '"writeQueueNums":16}';

describe('TopicConfigAndQueueMapping (GET_TOPIC_CONFIG body)', () => {
  const topicA = createTopicConfig('TopicA', {
    readQueueNums: 4,
    writeQueueNums: 4,
    perm: 4,
    topicFilterType: 'MULTI_TAG',
    topicSysFlag: 1,
  });

  test('generate: the 5.5.0 broker bytes', () => {
    assert.equal(encodeTopicConfigAndQueueMapping(topicA).toString('utf8'), V5_TOPIC_A);
    assert.equal(encodeTopicConfigAndQueueMapping(createTopicConfig('T')).toString('utf8'), V5_DEFAULTS);
  });

  test('parse: the 5.5.0 bytes give the TopicConfig; attributes and mappingDetail are read past', () => {
    assert.deepEqual(decodeTopicConfigAndQueueMapping(Buffer.from(V5_TOPIC_A)), topicA);
    const withMapping = `${V5_DEFAULTS.slice(0, -1)},"mappingDetail":{"bname":"b","epoch":1,"hostedQueues":{}}}`;
    assert.deepEqual(decodeTopicConfigAndQueueMapping(Buffer.from(withMapping)), createTopicConfig('T'));
  });

  test('bad bodies are refused with RemotingCommandError', () => {
    for (const body of [undefined, Buffer.from('{"perm":6}'), Buffer.from('{"topicName":"T"')]) {
      assert.throws(() => decodeTopicConfigAndQueueMapping(body), RemotingCommandError);
    }
  });
});
