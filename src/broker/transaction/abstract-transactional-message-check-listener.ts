/**
 * AbstractTransactionalMessageCheckListener (`broker/.../transaction/
 * AbstractTransactionalMessageCheckListener.java`): asks a producer of the half message's group
 * about its transaction (CHECK_TRANSACTION_STATE, oneway, to one live connection of the group),
 * and leaves to subclasses what happens to a message checked too often.
 */
import type { Logger } from '../../common/logger.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { type HeaderInputOf, parseJavaInt } from '../../remoting/protocol/header-schema.js';
import type { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import { checkProducerTransactionState } from '../client/broker2client.js';
import type { BrokerContext } from '../processor/broker-context.js';
import type { TransactionalMessageCheckListener } from './transactional-message-service.js';

/** Queues of TRANS_CHECK_MAX_TIME_TOPIC (upstream TCMT_QUEUE_NUMS). */
export const TCMT_QUEUE_NUMS = 1;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export abstract class AbstractTransactionalMessageCheckListener implements TransactionalMessageCheckListener {
  protected readonly brokerController: BrokerContext;

  constructor(brokerController: BrokerContext) {
    this.brokerController = brokerController;
  }

  protected get logger(): Logger {
    return this.brokerController.logger;
  }

  /**
   * Sends the check for `msgExt` (the copy just written back: its queue offset, commit log offset
   * and offsetMsgId are the ones the producer's answer must name). The message travels with its
   * real topic and queue, as the producer sent it. Throws when the message lacks them.
   */
  sendCheckMessage(msgExt: MessageExt): void {
    const uniqKey = msgExt.getUserProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
    const header: HeaderInputOf<typeof CheckTransactionStateRequestHeader> = {
      tranStateTableOffset: msgExt.queueOffset,
      commitLogOffset: msgExt.commitLogOffset,
      msgId: uniqKey,
      transactionId: uniqKey,
      offsetMsgId: msgExt.offsetMsgId,
    };
    const realTopic = msgExt.getUserProperty(MessageConst.PROPERTY_REAL_TOPIC);
    const realQueueId = parseJavaInt(msgExt.getUserProperty(MessageConst.PROPERTY_REAL_QUEUE_ID) ?? '');
    if (realTopic === undefined || realQueueId === undefined) {
      throw new Error(`half message ${msgExt.offsetMsgId} has no valid REAL_TOPIC / REAL_QID`);
    }
    msgExt.topic = realTopic;
    msgExt.queueId = realQueueId;
    msgExt.storeSize = 0;
    const groupId = msgExt.getProperty(MessageConst.PROPERTY_PRODUCER_GROUP);
    const channel = this.brokerController.producerManager.getAvailableChannel(groupId);
    if (channel === undefined) {
      this.logger.warn('Check transaction failed, channel is null', { groupId });
      return;
    }
    checkProducerTransactionState(groupId ?? '', channel, header, msgExt, this.logger);
  }

  /** Asks the producer about `msgExt`; a failure is logged, never thrown. */
  resolveHalfMsg(msgExt: MessageExt): void {
    try {
      this.sendCheckMessage(msgExt);
    } catch (error) {
      this.logger.error('Send check message error!', { error: describe(error) });
    }
  }

  /** A half message checked transactionCheckMax times (or older than the files are kept): its end. */
  abstract resolveDiscardMsg(msgExt: MessageExt): Promise<void>;

  shutDown(): void {}
}
