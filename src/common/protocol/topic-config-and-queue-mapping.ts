/**
 * TopicConfigAndQueueMapping (5.x `remoting/.../statictopic/TopicConfigAndQueueMapping.java`), the body
 * of a GET_TOPIC_CONFIG (351) answer: the TopicConfig bean plus `mappingDetail` for static topics
 * (null, so absent, for every other topic). The 5.5.0 bean also writes its `attributes` map and two
 * values derived from it, `topicMessageType` and `liteTopicExpiration`. We keep no topic attributes
 * and no static topics, so the body is what the 5.5.0 broker writes for a topic created without
 * attributes: `{}`, NORMAL and -1.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { readTopicConfig, type TopicConfig, topicConfigValue } from './topic-config.js';

export function encodeTopicConfigAndQueueMapping(config: TopicConfig): Buffer {
  return Buffer.from(
    stringifyFastjson({
      ...topicConfigValue(config),
      attributes: {},
      liteTopicExpiration: -1,
      topicMessageType: 'NORMAL',
    }),
    'utf8',
  );
}

/** The TopicConfig part; the attributes, the values derived from them and `mappingDetail` are read past. */
export function decodeTopicConfigAndQueueMapping(body: Buffer | undefined): TopicConfig {
  return readTopicConfig(BodyReader.parse('TopicConfigAndQueueMapping', body));
}
