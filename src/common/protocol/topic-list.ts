/**
 * TopicList (`common/.../protocol/body/TopicList.java`): `{"brokerAddr":..,"topicList":[..]}`, a
 * HashSet of topic names plus an optional broker address (set only by the system topic list).
 */
import { javaSet, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

export interface TopicList {
  /** In the order to write (Java's HashSet order for Java's bytes). */
  topicList: string[];
  brokerAddr?: string | undefined;
}

export function encodeTopicList(list: TopicList): Buffer {
  return Buffer.from(
    stringifyFastjson({ brokerAddr: list.brokerAddr, topicList: javaSet(list.topicList) }),
    'utf8',
  );
}

export function decodeTopicList(body: Buffer | undefined): TopicList {
  const r = BodyReader.parse('TopicList', body);
  return {
    topicList:
      r
        .optional('topicList')
        ?.array()
        .map((t) => t.string()) ?? [],
    brokerAddr: r.optional('brokerAddr')?.string(),
  };
}
