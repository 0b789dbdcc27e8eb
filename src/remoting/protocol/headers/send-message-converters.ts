import type { SendMessageRequestHeader } from './send-message-request-header.js';
import type { SendMessageRequestHeaderV2 } from './send-message-request-header-v2.js';

/**
 * `SendMessageRequestHeaderV2.createSendMessageRequestHeaderV1`: what the broker does with every
 * V2 send. The broker name moves from `n` (brokerName) to `bname`; V2's own `bname` is dropped.
 */
export function createSendMessageRequestHeaderV1(v2: SendMessageRequestHeaderV2): SendMessageRequestHeader {
  return {
    producerGroup: v2.producerGroup,
    topic: v2.topic,
    defaultTopic: v2.defaultTopic,
    defaultTopicQueueNums: v2.defaultTopicQueueNums,
    queueId: v2.queueId,
    sysFlag: v2.sysFlag,
    bornTimestamp: v2.bornTimestamp,
    flag: v2.flag,
    properties: v2.properties,
    reconsumeTimes: v2.reconsumeTimes,
    unitMode: v2.unitMode,
    batch: v2.batch,
    maxReconsumeTimes: v2.maxReconsumeTimes,
    bname: v2.brokerName,
  };
}

/** `SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2`: what Java clients send. */
export function createSendMessageRequestHeaderV2(v1: SendMessageRequestHeader): SendMessageRequestHeaderV2 {
  return {
    producerGroup: v1.producerGroup,
    topic: v1.topic,
    defaultTopic: v1.defaultTopic,
    defaultTopicQueueNums: v1.defaultTopicQueueNums,
    queueId: v1.queueId,
    sysFlag: v1.sysFlag,
    bornTimestamp: v1.bornTimestamp,
    flag: v1.flag,
    properties: v1.properties,
    reconsumeTimes: v1.reconsumeTimes,
    unitMode: v1.unitMode,
    maxReconsumeTimes: v1.maxReconsumeTimes,
    batch: v1.batch,
    brokerName: v1.bname,
    bname: undefined,
  };
}
