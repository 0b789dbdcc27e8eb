/**
 * POP names (upstream KeyBuilder and PopAckConstants): retry topics, the revive topic and group,
 * the long-polling key, the revive-log tags and the reserved revive queue id of FIFO pops.
 */

const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';
const POP_RETRY_SEPARATOR_V1 = '_';
const POP_RETRY_SEPARATOR_V2 = '+';

/** reviveQid written into FIFO receipt handles: ordered pops have no checkpoint to revive. */
export const POP_ORDER_REVIVE_QUEUE = 999;

export const PopAckConstants = {
  /** Consumer group whose offsets record how far each revive queue has been read. */
  REVIVE_GROUP: 'CID_RMQ_SYS_REVIVE_GROUP',
  /** Prefix of the revive topic; the cluster name follows. */
  REVIVE_TOPIC: 'rmq_sys_REVIVE_LOG_',
  CK_TAG: 'ck',
  ACK_TAG: 'ack',
  BATCH_ACK_TAG: 'bAck',
  SPLIT: '@',
} as const;

/** `rmq_sys_REVIVE_LOG_<brokerClusterName>` (PopAckConstants.buildClusterReviveTopic). */
export function buildClusterReviveTopic(clusterName: string): string {
  return PopAckConstants.REVIVE_TOPIC + clusterName;
}

export function isStartWithRevivePrefix(topic: string | undefined): boolean {
  return topic?.startsWith(PopAckConstants.REVIVE_TOPIC) === true;
}

/** `%RETRY%<group>_<topic>`, the POP retry topic (default, `enableRetryTopicV2` false). */
export function buildPopRetryTopicV1(topic: string, group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group + POP_RETRY_SEPARATOR_V1 + topic;
}

/** `%RETRY%<group>+<topic>` (`enableRetryTopicV2` true). */
export function buildPopRetryTopicV2(topic: string, group: string): string {
  return RETRY_GROUP_TOPIC_PREFIX + group + POP_RETRY_SEPARATOR_V2 + topic;
}

export function buildPopRetryTopic(topic: string, group: string, enableRetryTopicV2 = false): string {
  return enableRetryTopicV2 ? buildPopRetryTopicV2(topic, group) : buildPopRetryTopicV1(topic, group);
}

/** A V2 POP retry topic: starts with `%RETRY%` and contains `+` (upstream's test, kept as loose). */
export function isPopRetryTopicV2(topic: string): boolean {
  return topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) && topic.includes(POP_RETRY_SEPARATOR_V2);
}

/** The normal topic of a POP retry topic of `group`; other topics are returned as they are. */
export function parseNormalTopic(topic: string, group: string): string {
  if (!topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) return topic;
  const v2 = RETRY_GROUP_TOPIC_PREFIX + group + POP_RETRY_SEPARATOR_V2;
  if (topic.startsWith(v2)) return topic.slice(v2.length);
  return topic.slice((RETRY_GROUP_TOPIC_PREFIX + group + POP_RETRY_SEPARATOR_V1).length);
}

/** `topic@group@queueId`: the key of a queue's parked pops and of its pop lock. */
export function buildPollingKey(topic: string, group: string, queueId: number): string {
  return topic + PopAckConstants.SPLIT + group + PopAckConstants.SPLIT + queueId;
}
