/**
 * ConsumerManager (`broker/.../client/ConsumerManager.java`): consumer groups by name. Heartbeats
 * register members and subscriptions; a closed connection or a member silent for
 * channelExpiredTimeout leaves the group, and the last member leaving removes the group. Changes are
 * reported to the ConsumerIdsChangeListener (which tells the group's members to rebalance).
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { ConsumeFromWhere, ConsumeType, MessageModel } from '../../common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { ClientChannel, ClientChannelInfo } from './client-channel-info.js';
import { ConsumerGroupInfo } from './consumer-group-info.js';
import type { ConsumerIdsChangeListener } from './consumer-ids-change-listener.js';

export interface ConsumerManagerOptions {
  listener: ConsumerIdsChangeListener;
  clock: Clock;
  logger: Logger;
  /** ms without heartbeat after which a member is dropped (upstream CHANNEL_EXPIRED_TIMEOUT, 120 s). */
  channelExpiredTimeout: number;
}

export class ConsumerManager {
  private readonly table = new Map<string, ConsumerGroupInfo>();
  private readonly listener: ConsumerIdsChangeListener;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly channelExpiredTimeout: number;

  constructor(options: ConsumerManagerOptions) {
    this.listener = options.listener;
    this.clock = options.clock;
    this.logger = options.logger;
    this.channelExpiredTimeout = options.channelExpiredTimeout;
  }

  /** group -> info. */
  get consumerTable(): ReadonlyMap<string, ConsumerGroupInfo> {
    return this.table;
  }

  getConsumerGroupInfo(group: string): ConsumerGroupInfo | undefined {
    return this.table.get(group);
  }

  findChannel(group: string, clientId: string): ClientChannelInfo | undefined {
    return this.table.get(group)?.findChannel(clientId);
  }

  findSubscriptionData(group: string, topic: string): SubscriptionData | undefined {
    return this.table.get(group)?.findSubscriptionData(topic);
  }

  findSubscriptionDataCount(group: string): number {
    return this.table.get(group)?.subscriptionTable.size ?? 0;
  }

  /**
   * A consumer heartbeat. Returns true when the group's members or subscribed topics changed; then,
   * if `notifyConsumerIdsChanged`, the members are told (CHANGE).
   */
  registerConsumer(
    group: string,
    info: ClientChannelInfo,
    consumeType: ConsumeType | undefined,
    messageModel: MessageModel | undefined,
    consumeFromWhere: ConsumeFromWhere | undefined,
    subList: readonly SubscriptionData[],
    notifyConsumerIdsChanged: boolean,
  ): boolean {
    const groupInfo = this.groupInfoOrNew(group, consumeType, messageModel, consumeFromWhere);
    const r1 = groupInfo.updateChannel(info, consumeType, messageModel, consumeFromWhere);
    const r2 = groupInfo.updateSubscription(subList);
    if ((r1 || r2) && notifyConsumerIdsChanged) {
      this.listener.handle({ type: 'CHANGE', group, channels: groupInfo.getAllChannel() });
    }
    this.listener.handle({ type: 'REGISTER', group, subscriptions: subList });
    return r1 || r2;
  }

  /**
   * A 5.x heartbeat V2 that left the subscriptions out (`withoutSub`, its fingerprint unchanged):
   * as upstream 5.x registerConsumerWithoutSub, only the member and how the group consumes are
   * refreshed; the group's subscriptions stay as they are. Returns true when a member joined; then
   * the members of a clustering group are told (CHANGE) if `notifyConsumerIdsChanged`.
   */
  registerConsumerWithoutSub(
    group: string,
    info: ClientChannelInfo,
    consumeType: ConsumeType | undefined,
    messageModel: MessageModel | undefined,
    consumeFromWhere: ConsumeFromWhere | undefined,
    notifyConsumerIdsChanged: boolean,
  ): boolean {
    const groupInfo = this.groupInfoOrNew(group, consumeType, messageModel, consumeFromWhere);
    const changed = groupInfo.updateChannel(info, consumeType, messageModel, consumeFromWhere);
    if (changed && notifyConsumerIdsChanged && groupInfo.messageModel !== 'BROADCASTING') {
      this.listener.handle({ type: 'CHANGE', group, channels: groupInfo.getAllChannel() });
    }
    return changed;
  }

  /** The group's entry, created with how its first member consumes when there is none. */
  private groupInfoOrNew(
    group: string,
    consumeType: ConsumeType | undefined,
    messageModel: MessageModel | undefined,
    consumeFromWhere: ConsumeFromWhere | undefined,
  ): ConsumerGroupInfo {
    let groupInfo = this.table.get(group);
    if (groupInfo === undefined) {
      groupInfo = new ConsumerGroupInfo(
        group,
        consumeType,
        messageModel,
        consumeFromWhere,
        this.clock,
        this.logger,
      );
      this.table.set(group, groupInfo);
    }
    return groupInfo;
  }

  /** UNREGISTER_CLIENT for a consumer group. */
  unregisterConsumer(group: string, channel: ClientChannel, notifyConsumerIdsChanged: boolean): void {
    const groupInfo = this.table.get(group);
    if (groupInfo === undefined) return;
    groupInfo.unregisterChannel(channel);
    if (groupInfo.channelInfoTable.size === 0 && this.table.delete(group)) {
      this.logger.info('unregister consumer ok, no any connection, and remove consumer group', { group });
      this.listener.handle({ type: 'UNREGISTER', group });
    }
    if (notifyConsumerIdsChanged) {
      this.listener.handle({ type: 'CHANGE', group, channels: groupInfo.getAllChannel() });
    }
  }

  /**
   * A connection closed: it leaves every group it was in; the remaining members are told (whether
   * the listener notifies is its own setting, as upstream).
   */
  doChannelCloseEvent(remoteAddr: string, channel: ClientChannel): void {
    for (const [group, groupInfo] of [...this.table]) {
      if (!groupInfo.doChannelCloseEvent(channel)) continue;
      if (groupInfo.channelInfoTable.size === 0 && this.table.delete(group)) {
        this.logger.info('unregister consumer ok, no any connection, and remove consumer group', {
          group,
          remoteAddr,
        });
        this.listener.handle({ type: 'UNREGISTER', group });
      }
      this.listener.handle({ type: 'CHANGE', group, channels: groupInfo.getAllChannel() });
    }
  }

  /**
   * Drops members silent for channelExpiredTimeout and closes their connections; empty groups go.
   * As upstream, no member is notified here (the member is gone from the table before its connection
   * closes, so the close event finds nothing); the others rebalance on their own timer. Unlike
   * upstream, a group emptied here is UNREGISTERed: otherwise its consumer filter data, marked dead
   * only by that event, would never be cleaned when its clients vanished without closing.
   */
  scanNotActiveChannel(): void {
    for (const [group, groupInfo] of [...this.table]) {
      for (const info of groupInfo.scanNotActiveChannel(this.channelExpiredTimeout)) {
        this.logger.warn('SCAN: remove expired channel from ConsumerManager consumerTable', {
          group,
          remoteAddress: info.channel.remoteAddress,
          clientId: info.clientId,
        });
        info.channel.close('no heartbeat');
      }
      if (groupInfo.channelInfoTable.size === 0) {
        this.logger.warn('SCAN: remove expired channel from ConsumerManager consumerTable, all clear', {
          group,
        });
        this.table.delete(group);
        this.listener.handle({ type: 'UNREGISTER', group });
      }
    }
  }

  /** Groups whose members subscribe to the topic. */
  queryTopicConsumeByWho(topic: string): Set<string> {
    const groups = new Set<string>();
    for (const [group, info] of this.table) if (info.subscriptionTable.has(topic)) groups.add(group);
    return groups;
  }
}
