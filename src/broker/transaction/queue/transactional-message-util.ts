/**
 * TransactionalMessageUtil (`broker/.../transaction/queue/TransactionalMessageUtil.java`): the names
 * the transaction service works with.
 */
import { MixAll } from '../../../common/constants.js';
import { TopicValidator } from '../../../common/validators.js';

export const TransactionalMessageUtil = {
  /** Tag of an op message: the half message at the body's queue offset was committed or rolled back. */
  REMOVETAG: 'd',
  buildOpTopic: (): string => TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  buildHalfTopic: (): string => TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
  /** The group whose consume offsets mark how far the half and op queues have been checked. */
  buildConsumerGroup: (): string => MixAll.CID_SYS_RMQ_TRANS,
} as const;
