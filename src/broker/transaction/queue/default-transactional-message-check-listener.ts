/**
 * DefaultTransactionalMessageCheckListener (`broker/.../transaction/queue/
 * DefaultTransactionalMessageCheckListener.java`, 4.9.8): a half message checked too often is moved
 * to TRANS_CHECK_MAX_TIME_TOPIC (one queue, created on first use), where an operator can find it.
 */
import { PermName } from '../../../common/constants.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { tagsString2tagsCode } from '../../../common/message/tag-hash.js';
import { PutMessageStatus } from '../../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../../store/stored-record-writer.js';
import {
  AbstractTransactionalMessageCheckListener,
  TCMT_QUEUE_NUMS,
} from '../abstract-transactional-message-check-listener.js';
import { javaPropertiesString } from './transactional-message-bridge.js';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class DefaultTransactionalMessageCheckListener extends AbstractTransactionalMessageCheckListener {
  override async resolveDiscardMsg(msgExt: MessageExt): Promise<void> {
    const realTopic = msgExt.getUserProperty(MessageConst.PROPERTY_REAL_TOPIC);
    this.logger.error(
      'MsgExt has been checked too many times, so discard it by moving it to system topic TRANS_CHECK_MAXTIME_TOPIC',
      { offsetMsgId: msgExt.offsetMsgId, queueOffset: msgExt.queueOffset, realTopic },
    );
    try {
      const result = await this.brokerController.messageStore.putMessage(
        this.toMessageExtBrokerInner(msgExt),
      );
      if (result.putMessageStatus === PutMessageStatus.PUT_OK) {
        this.logger.info('Put checked-too-many-time half message to TRANS_CHECK_MAXTIME_TOPIC OK', {
          queueOffset: msgExt.queueOffset,
          commitLogOffset: msgExt.commitLogOffset,
          realTopic,
        });
      } else {
        this.logger.error('Put checked-too-many-time half message to TRANS_CHECK_MAXTIME_TOPIC failed', {
          realTopic,
          offsetMsgId: msgExt.offsetMsgId,
          status: result.putMessageStatus,
        });
      }
    } catch (error) {
      this.logger.warn('Put checked-too-many-time message to TRANS_CHECK_MAXTIME_TOPIC error', {
        error: describe(error),
      });
    }
  }

  private toMessageExtBrokerInner(msgExt: MessageExt): MessageExtBrokerInner {
    const topicConfig = this.brokerController.topicConfigManager.createTopicOfTranCheckMaxTime(
      TCMT_QUEUE_NUMS,
      PermName.PERM_READ | PermName.PERM_WRITE,
    );
    return {
      topic: topicConfig.topicName,
      queueId: Math.floor(Math.random() * 99_999_999) % TCMT_QUEUE_NUMS,
      flag: msgExt.flag,
      body: msgExt.body,
      propertiesString: javaPropertiesString(msgExt.properties),
      tagsCode: tagsString2tagsCode(msgExt.tags),
      sysFlag: msgExt.sysFlag,
      bornTimestamp: msgExt.bornTimestamp,
      bornHost: msgExt.bornHost,
      storeHost: msgExt.storeHost,
      reconsumeTimes: msgExt.reconsumeTimes,
      preparedTransactionOffset: 0n,
      waitStoreMsgOK: false,
    };
  }
}
