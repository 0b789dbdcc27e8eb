/**
 * TransactionalMessageBridge (`broker/.../transaction/queue/TransactionalMessageBridge.java`): the
 * transaction service's way into the store and the offset table. It reads the half and op queues
 * as the internal group CID_RMQ_SYS_TRANS, keeps that group's consume offsets of both, writes op
 * messages (tag `d`, body = the half message's queue offset) and writes half messages back.
 */
import { PermName } from '../../../common/constants.js';
import type { HostAddress } from '../../../common/message/host.js';
import { Message, type MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { javaPropertiesOrder, messageProperties2String } from '../../../common/message/properties.js';
import { decodeMessage } from '../../../common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../common/message/tag-hash.js';
import { GetMessageStatus } from '../../../store/message-store.js';
import { type PutMessageResult, PutMessageStatus } from '../../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../../store/stored-record-writer.js';
import type { BrokerContext } from '../../processor/broker-context.js';
import { storeHostOf } from '../../processor/send-message-support.js';
import { type PullResult, PullStatus } from './get-result.js';
import { TransactionalMessageUtil } from './transactional-message-util.js';

/** Java's messageProperties2String over the HashMap a decoded message holds its properties in. */
export function javaPropertiesString(properties: ReadonlyMap<string, string>): string {
  return messageProperties2String(javaPropertiesOrder(properties));
}

/** A stored record as MessageDecoder.decode(buffer, true, false) reads it; undefined where Java gets null. */
export function decodeStored(record: Buffer): MessageExt | undefined {
  try {
    return decodeMessage(record, 0, { decompress: false, copyBody: true });
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class TransactionalMessageBridge {
  constructor(private readonly broker: BrokerContext) {}

  /** brokerIP1:listenPort, the born and store host of the op messages. */
  get storeHost(): HostAddress {
    return storeHostOf(this.broker);
  }

  get brokerContext(): BrokerContext {
    return this.broker;
  }

  /** CID_RMQ_SYS_TRANS's offset of the queue; the queue's min offset when it has none yet. */
  fetchConsumeOffset(mq: MessageQueue): bigint {
    const offset = this.broker.consumerOffsetManager.queryOffset(
      TransactionalMessageUtil.buildConsumerGroup(),
      mq.topic,
      mq.queueId,
    );
    return offset === -1n ? this.broker.messageStore.getMinOffsetInQueue(mq.topic, mq.queueId) : offset;
  }

  /** The topic's read queues; the topic (one queue, read-write) is created on first use, as upstream. */
  fetchMessageQueues(topic: string): MessageQueue[] {
    const topicConfig = this.selectTopicConfig(topic);
    const out: MessageQueue[] = [];
    for (let i = 0; i < topicConfig.readQueueNums; i++) {
      out.push(new MessageQueue(topic, this.broker.config.brokerName, i));
    }
    return out;
  }

  updateConsumeOffset(mq: MessageQueue, offset: bigint): void {
    this.broker.consumerOffsetManager.commitOffset(
      this.broker.brokerAddr,
      TransactionalMessageUtil.buildConsumerGroup(),
      mq.topic,
      mq.queueId,
      offset,
    );
  }

  getHalfMessage(queueId: number, offset: bigint, nums: number): Promise<PullResult> {
    return this.getMessage(TransactionalMessageUtil.buildHalfTopic(), queueId, offset, nums);
  }

  getOpMessage(queueId: number, offset: bigint, nums: number): Promise<PullResult> {
    return this.getMessage(TransactionalMessageUtil.buildOpTopic(), queueId, offset, nums);
  }

  private async getMessage(
    topic: string,
    queueId: number,
    offset: bigint,
    nums: number,
  ): Promise<PullResult> {
    const group = TransactionalMessageUtil.buildConsumerGroup();
    const logger = this.broker.logger;
    const r = await this.broker.messageStore.getMessage(group, topic, queueId, offset, nums);
    let pullStatus: PullStatus;
    let msgFoundList: MessageExt[] | undefined;
    switch (r.status) {
      case GetMessageStatus.FOUND: {
        pullStatus = PullStatus.FOUND;
        msgFoundList = [];
        for (const record of r.messages) {
          const msg = decodeStored(record);
          if (msg !== undefined) msgFoundList.push(msg);
        }
        const stats = this.broker.brokerStatsManager;
        stats.incGroupGetNums(group, topic, r.messages.length);
        stats.incGroupGetSize(group, topic, r.bufferTotalSize);
        stats.incBrokerGetNums(r.messages.length);
        const last = msgFoundList[msgFoundList.length - 1];
        if (last !== undefined) {
          stats.recordDiskFallBehindTime(
            group,
            topic,
            queueId,
            this.broker.clock.now() - Number(last.storeTimestamp),
          );
        }
        break;
      }
      case GetMessageStatus.NO_MATCHED_MESSAGE:
        pullStatus = PullStatus.NO_MATCHED_MSG;
        logger.warn('No matched message', { status: r.status, topic, group, offset });
        break;
      case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
      case GetMessageStatus.OFFSET_OVERFLOW_ONE:
        pullStatus = PullStatus.NO_NEW_MSG;
        logger.debug('No new message', { status: r.status, topic, group, offset });
        break;
      default:
        pullStatus = PullStatus.OFFSET_ILLEGAL;
        logger.warn('Offset illegal', { status: r.status, topic, group, offset });
        break;
    }
    return {
      pullStatus,
      nextBeginOffset: r.nextBeginOffset,
      minOffset: r.minOffset,
      maxOffset: r.maxOffset,
      msgFoundList,
    };
  }

  /** Writes the op message of `opType` for the half message; only REMOVETAG exists. Always true, as upstream. */
  async putOpMessage(messageExt: MessageExt, opType: string): Promise<boolean> {
    if (opType === TransactionalMessageUtil.REMOVETAG) {
      await this.addRemoveTagInTransactionOp(messageExt, messageExt.queueId);
    }
    return true;
  }

  putMessageReturnResult(messageInner: MessageExtBrokerInner): Promise<PutMessageResult> {
    return this.broker.messageStore.putMessage(messageInner);
  }

  /** True when the store answered PUT_OK; a failure is logged. */
  async putMessage(messageInner: MessageExtBrokerInner): Promise<boolean> {
    let status: string;
    try {
      status = (await this.broker.messageStore.putMessage(messageInner)).putMessageStatus;
    } catch (error) {
      status = describe(error);
    }
    if (status === PutMessageStatus.PUT_OK) return true;
    this.broker.logger.error('Put message failed', {
      topic: messageInner.topic,
      queueId: messageInner.queueId,
      status,
    });
    return false;
  }

  /**
   * A half message written back during its immunity time: it remembers the queue offset of the
   * original (TRAN_PREPARED_QUEUE_OFFSET), which the producer's END_TRANSACTION names.
   */
  renewImmunityHalfMessageInner(msgExt: MessageExt): MessageExtBrokerInner {
    const inner = this.renewHalfMessageInner(msgExt);
    const key = MessageConst.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET;
    const properties = new Map(msgExt.properties);
    properties.set(key, msgExt.getUserProperty(key) ?? String(msgExt.queueOffset));
    inner.propertiesString = javaPropertiesString(properties);
    return inner;
  }

  /**
   * The half message as written back for its next check. As upstream, the user flag and
   * reconsumeTimes are not carried over (both 0).
   */
  renewHalfMessageInner(msgExt: MessageExt): MessageExtBrokerInner {
    return {
      topic: msgExt.topic,
      queueId: msgExt.queueId,
      flag: 0,
      body: msgExt.body,
      propertiesString: javaPropertiesString(msgExt.properties),
      tagsCode: tagsString2tagsCode(msgExt.tags),
      sysFlag: msgExt.sysFlag,
      bornTimestamp: msgExt.bornTimestamp,
      bornHost: msgExt.bornHost,
      storeHost: msgExt.storeHost,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0n,
      waitStoreMsgOK: false,
    };
  }

  /** The message whose record starts at `commitLogOffset`, or undefined. */
  lookMessageByOffset(commitLogOffset: bigint): MessageExt | undefined {
    const record = this.broker.messageStore.selectOneMessageByOffset(commitLogOffset);
    return record === undefined ? undefined : decodeStored(record);
  }

  private selectTopicConfig(topic: string) {
    return (
      this.broker.topicConfigManager.selectTopicConfig(topic) ??
      this.broker.topicConfigManager.createTopicInSendMessageBackMethod(
        topic,
        1,
        PermName.PERM_WRITE | PermName.PERM_READ,
        0,
      )
    );
  }

  private async addRemoveTagInTransactionOp(prepareMessage: MessageExt, queueId: number): Promise<void> {
    const message = new Message(
      TransactionalMessageUtil.buildOpTopic(),
      Buffer.from(String(prepareMessage.queueOffset), 'utf8'),
      { tags: TransactionalMessageUtil.REMOVETAG },
    );
    await this.putMessage(this.makeOpMessageInner(message, queueId));
  }

  /**
   * Upstream sets UNIQ_KEY on the op message after its properties string is built, so the stored
   * op message carries only TAGS and WAIT (in HashMap order).
   */
  private makeOpMessageInner(message: Message, queueId: number): MessageExtBrokerInner {
    const host = this.storeHost;
    return {
      topic: message.topic,
      queueId,
      flag: 0,
      body: message.body,
      propertiesString: javaPropertiesString(message.properties),
      tagsCode: tagsString2tagsCode(message.tags),
      sysFlag: 0,
      bornTimestamp: BigInt(this.broker.clock.now()),
      bornHost: host,
      storeHost: host,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0n,
      waitStoreMsgOK: false,
    };
  }
}
