import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';

/**
 * GET_TOPIC_CONFIG (351) request, a 5.x code (`org.apache.rocketmq.remoting.protocol.header`): the
 * 5.x mqadmin's topicStatus, and DefaultMQAdminExt.examineTopicConfig, ask each broker of the route for
 * the topic's config with it. `lo` (from TopicRequestHeader) asks for the static-topic queue mapping
 * as well. Meant for decoding: the RpcRequestHeader fields (`bname`, `ns`, `nsd`, `oway`) are not
 * declared, so `javaOrder` is not 5.x's insertion order.
 */
export const GetTopicConfigRequestHeader = defineHeader({
  name: 'GetTopicConfigRequestHeader',
  javaClass: 'org.apache.rocketmq.remoting.protocol.header.GetTopicConfigRequestHeader',
  fields: {
    topic: req('string'),
    lo: opt('boolean'),
  },
});

export type GetTopicConfigRequestHeader = HeaderOf<typeof GetTopicConfigRequestHeader>;
