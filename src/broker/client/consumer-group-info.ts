/**
 * ConsumerGroupInfo (`broker/.../client/ConsumerGroupInfo.java`): the online members of one consumer
 * group and the union of their subscriptions, plus how the group consumes (the last heartbeat wins).
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { ConsumeFromWhere, ConsumeType, MessageModel } from '../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { ClientChannel, ClientChannelInfo } from './client-channel-info.js';

export class ConsumerGroupInfo {
  readonly groupName: string;
  consumeType: ConsumeType | undefined;
  messageModel: MessageModel | undefined;
  consumeFromWhere: ConsumeFromWhere | undefined;
  lastUpdateTimestamp: number;
  private readonly subscriptions = new Map<string, SubscriptionData>();
  private readonly channels = new Map<ClientChannel, ClientChannelInfo>();
  private readonly clock: Clock;
  private readonly logger: Logger;

  constructor(
    groupName: string,
    consumeType: ConsumeType | undefined,
    messageModel: MessageModel | undefined,
    consumeFromWhere: ConsumeFromWhere | undefined,
    clock: Clock,
    logger: Logger,
  ) {
    this.groupName = groupName;
    this.consumeType = consumeType;
    this.messageModel = messageModel;
    this.consumeFromWhere = consumeFromWhere;
    this.clock = clock;
    this.logger = logger;
    this.lastUpdateTimestamp = clock.now();
  }

  /** topic -> subscription. */
  get subscriptionTable(): ReadonlyMap<string, SubscriptionData> {
    return this.subscriptions;
  }

  get channelInfoTable(): ReadonlyMap<ClientChannel, ClientChannelInfo> {
    return this.channels;
  }

  findChannel(clientId: string): ClientChannelInfo | undefined {
    for (const info of this.channels.values()) if (info.clientId === clientId) return info;
    return undefined;
  }

  getAllChannel(): ClientChannel[] {
    return [...this.channels.keys()];
  }

  getAllClientId(): string[] {
    return [...this.channels.values()].map((info) => info.clientId);
  }

  findSubscriptionData(topic: string): SubscriptionData | undefined {
    return this.subscriptions.get(topic);
  }

  getSubscribeTopics(): string[] {
    return [...this.subscriptions.keys()];
  }

  unregisterChannel(channel: ClientChannel): boolean {
    const old = this.channels.get(channel);
    if (old === undefined) return false;
    this.channels.delete(channel);
    this.logger.info('unregister a consumer from consumerGroupInfo', {
      group: this.groupName,
      clientId: old.clientId,
    });
    return true;
  }

  /** The connection closed: true when it was a member. */
  doChannelCloseEvent(channel: ClientChannel): boolean {
    const info = this.channels.get(channel);
    if (info === undefined) return false;
    this.channels.delete(channel);
    this.logger.warn('NETTY EVENT: remove not active channel from ConsumerGroupInfo', {
      group: this.groupName,
      clientId: info.clientId,
      remoteAddress: channel.remoteAddress,
    });
    return true;
  }

  /** A heartbeat from a member: true when it is a new member. */
  updateChannel(
    infoNew: ClientChannelInfo,
    consumeType: ConsumeType | undefined,
    messageModel: MessageModel | undefined,
    consumeFromWhere: ConsumeFromWhere | undefined,
  ): boolean {
    let updated = false;
    this.consumeType = consumeType;
    this.messageModel = messageModel;
    this.consumeFromWhere = consumeFromWhere;
    let info = this.channels.get(infoNew.channel);
    if (info === undefined) {
      this.channels.set(infoNew.channel, infoNew);
      this.logger.info('new consumer connected', {
        group: this.groupName,
        clientId: infoNew.clientId,
        remoteAddress: infoNew.channel.remoteAddress,
      });
      updated = true;
      info = infoNew;
    } else if (info.clientId !== infoNew.clientId) {
      this.logger.error('[BUG] consumer channel exist in broker, but clientId not equal', {
        group: this.groupName,
        old: info.clientId,
        new: infoNew.clientId,
      });
      this.channels.set(infoNew.channel, infoNew);
    }
    this.lastUpdateTimestamp = this.clock.now();
    info.lastUpdateTimestamp = this.lastUpdateTimestamp;
    return updated;
  }

  /**
   * The subscriptions of a heartbeat replace the group's: new topics are added, a newer subVersion
   * replaces the held one, topics no longer listed are dropped. True when a topic was added or
   * dropped (a newer version of a held topic alone does not count, as upstream).
   */
  updateSubscription(subList: readonly SubscriptionData[]): boolean {
    let updated = false;
    for (const sub of subList) {
      const old = this.subscriptions.get(sub.topic);
      if (old === undefined) {
        this.subscriptions.set(sub.topic, sub);
        updated = true;
        this.logger.info('subscription changed, add new topic', { group: this.groupName, topic: sub.topic });
      } else if (sub.subVersion > old.subVersion) {
        if (this.consumeType === 'CONSUME_PASSIVELY') {
          this.logger.info('subscription changed', { group: this.groupName, topic: sub.topic });
        }
        this.subscriptions.set(sub.topic, sub);
      }
    }
    const listed = new Set(subList.map((s) => s.topic));
    for (const topic of [...this.subscriptions.keys()]) {
      if (!listed.has(topic)) {
        this.subscriptions.delete(topic);
        updated = true;
        this.logger.warn('subscription changed, remove topic', { group: this.groupName, topic });
      }
    }
    this.lastUpdateTimestamp = this.clock.now();
    return updated;
  }

  /** Drops members whose last heartbeat is older than `expiredMs` and closes their connections. */
  scanNotActiveChannel(expiredMs: number): ClientChannelInfo[] {
    const now = this.clock.now();
    const removed: ClientChannelInfo[] = [];
    for (const [channel, info] of [...this.channels]) {
      if (now - info.lastUpdateTimestamp > expiredMs) {
        this.channels.delete(channel);
        removed.push(info);
      }
    }
    return removed;
  }
}
