/**
 * What MQClientInstance needs of the producers and consumers registered on it (upstream
 * MQProducerInner, MQConsumerInner): the topics they use, the routes they want, their groups for the
 * heartbeat, and the answers to the requests brokers send to clients.
 */
import type { Message, MessageExt } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { ConsumeFromWhere, ConsumeType, MessageModel } from '../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import type { TopicPublishInfo } from '../producer/topic-publish-info.js';
import type { SendResult } from './requests/send-message.js';

/** The instance's own producer (CLIENT_INNER_PRODUCER): consumers send failed messages back with it. */
export interface InnerProducer {
  sendInner(msg: Message, timeoutMs: number): Promise<SendResult>;
  shutdownInner(): Promise<void>;
}

export interface MQProducerInner {
  /** Topics whose routes this producer keeps (refreshed every pollNameServerInterval). */
  getPublishTopicList(): Iterable<string>;
  /** True when the producer has no usable route of `topic` yet. */
  isPublishTopicNeedUpdate(topic: string): boolean;
  /** A new route of `topic`; an info with no queues when the topic is gone from the name servers. */
  updateTopicPublishInfo(topic: string, info: TopicPublishInfo): void;
  /** CHECK_TRANSACTION_STATE from the broker at `brokerAddr` for a half message of this group. */
  checkTransactionState(
    brokerAddr: string,
    msg: MessageExt,
    header: CheckTransactionStateRequestHeader,
  ): void;
  isUnitMode(): boolean;
}

export interface MQConsumerInner {
  groupName(): string;
  messageModel(): MessageModel;
  consumeType(): ConsumeType;
  consumeFromWhere(): ConsumeFromWhere;
  subscriptions(): readonly SubscriptionData[];
  isUnitMode(): boolean;
  /** Readable queues of `topic` after a route change. */
  updateTopicSubscribeInfo(topic: string, queues: readonly MessageQueue[]): void;
  isSubscribeTopicNeedUpdate(topic: string): boolean;
  doRebalance(): Promise<void>;
  persistConsumerOffset(): Promise<void>;
  /** RESET_CONSUMER_CLIENT_OFFSET: move the group's queues of `topic` to these offsets now. */
  resetOffset(topic: string, offsets: ReadonlyArray<readonly [MessageQueue, bigint]>): Promise<void>;
  /** GET_CONSUMER_STATUS_FROM_CLIENT: the group's offsets of `topic` (every topic when undefined). */
  consumerStatus(topic: string | undefined): Array<[MessageQueue, bigint]>;
  /** GET_CONSUMER_RUNNING_INFO: the ConsumerRunningInfo body, encoded. */
  consumerRunningInfo(jstackEnable: boolean): Buffer;
  /** CONSUME_MESSAGE_DIRECTLY: runs the listener on `msg`; the ConsumeMessageDirectlyResult body, encoded. */
  consumeMessageDirectly(msg: MessageExt, brokerName: string | undefined): Promise<Buffer>;
}
