import { defineHeader, type HeaderOf, opt, req, reqPrim, withDefault } from '../header-schema.js';

/**
 * ResetOffsetRequestHeader as 5.x declares it (`org.apache.rocketmq.remoting.protocol.header`): the
 * 4.9.8 fields plus `queueId` (a primitive int initialised to -1, so 5.x always writes it; -1 means
 * every queue) and `offset` (reset that one queue to exactly this offset). The broker reads
 * INVOKE_BROKER_TO_RESET_OFFSET with it; a 4.9.8 admin writes neither, which reads as queueId -1.
 * Meant for decoding: the fields 5.x inherits from TopicQueueRequestHeader (`lo`, `bname`, `ns`...)
 * are not declared, so `javaOrder` is not 5.x's insertion order.
 */
export const ResetOffsetRequestHeaderV5 = defineHeader({
  name: 'ResetOffsetRequestHeader',
  javaClass: 'org.apache.rocketmq.remoting.protocol.header.ResetOffsetRequestHeader',
  fields: {
    group: req('string'),
    topic: req('string'),
    queueId: withDefault('int', -1, false),
    offset: opt('long'),
    timestamp: reqPrim('long'),
    isForce: reqPrim('boolean'),
  },
});

export type ResetOffsetRequestHeaderV5 = HeaderOf<typeof ResetOffsetRequestHeaderV5>;
