/**
 * ProducerManager (`broker/.../client/ProducerManager.java`): producer groups and their connections,
 * from heartbeats. Used to list connections and to pick a producer to ask about a transaction.
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { ClientChannel, ClientChannelInfo } from './client-channel-info.js';

/** ProducerManager.GET_AVAILABLE_CHANNEL_RETRY_COUNT. */
const GET_AVAILABLE_CHANNEL_RETRY_COUNT = 3;

export interface ProducerManagerOptions {
  clock: Clock;
  logger: Logger;
  /** ms without heartbeat after which a producer connection is dropped (upstream 120 s). */
  channelExpiredTimeout: number;
}

export class ProducerManager {
  private readonly groupChannels = new Map<string, Map<ClientChannel, ClientChannelInfo>>();
  private readonly clientChannels = new Map<string, ClientChannel>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly channelExpiredTimeout: number;
  private counter = 0;

  constructor(options: ProducerManagerOptions) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.channelExpiredTimeout = options.channelExpiredTimeout;
  }

  /** group -> connection -> info. */
  get groupChannelTable(): ReadonlyMap<string, ReadonlyMap<ClientChannel, ClientChannelInfo>> {
    return this.groupChannels;
  }

  /** A producer heartbeat: a new connection joins, a known one is marked alive. */
  registerProducer(group: string, info: ClientChannelInfo): void {
    let channels = this.groupChannels.get(group);
    if (channels === undefined) {
      channels = new Map();
      this.groupChannels.set(group, channels);
    }
    const found = channels.get(info.channel);
    if (found === undefined) {
      channels.set(info.channel, info);
      this.clientChannels.set(info.clientId, info.channel);
      this.logger.info('new producer connected', {
        group,
        clientId: info.clientId,
        remoteAddress: info.channel.remoteAddress,
      });
    } else {
      found.lastUpdateTimestamp = this.clock.now();
    }
  }

  /** UNREGISTER_CLIENT for a producer group; the group goes when its last connection does. */
  unregisterProducer(group: string, channel: ClientChannel, clientId: string): void {
    const channels = this.groupChannels.get(group);
    if (channels === undefined || channels.size === 0) return;
    const old = channels.get(channel);
    channels.delete(channel);
    this.clientChannels.delete(clientId);
    if (old !== undefined)
      this.logger.info('unregister a producer from groupChannelTable', { group, clientId });
    if (channels.size === 0) {
      this.groupChannels.delete(group);
      this.logger.info('unregister a producer group from groupChannelTable', { group });
    }
  }

  /**
   * A connection closed: it leaves every group. Upstream keeps a group whose last connection closed
   * (an empty entry until restart); here the empty group goes, as on unregistration.
   */
  doChannelCloseEvent(remoteAddr: string, channel: ClientChannel): void {
    for (const [group, channels] of [...this.groupChannels]) {
      const info = channels.get(channel);
      if (info === undefined) continue;
      channels.delete(channel);
      if (this.clientChannels.get(info.clientId) === channel) this.clientChannels.delete(info.clientId);
      this.logger.info('NETTY EVENT: remove channel from ProducerManager groupChannelTable', {
        group,
        clientId: info.clientId,
        remoteAddr,
      });
      if (channels.size === 0) this.groupChannels.delete(group);
    }
  }

  /** Drops connections silent for channelExpiredTimeout and closes them. */
  scanNotActiveChannel(): void {
    const now = this.clock.now();
    for (const [group, channels] of [...this.groupChannels]) {
      for (const [channel, info] of [...channels]) {
        if (now - info.lastUpdateTimestamp <= this.channelExpiredTimeout) continue;
        channels.delete(channel);
        if (this.clientChannels.get(info.clientId) === channel) this.clientChannels.delete(info.clientId);
        this.logger.warn('SCAN: remove expired channel from ProducerManager groupChannelTable', {
          group,
          remoteAddress: channel.remoteAddress,
        });
        channel.close('no heartbeat');
      }
      if (channels.size === 0) this.groupChannels.delete(group);
    }
  }

  /**
   * A connection of the group to send a request to (round robin; an open one preferred), or
   * undefined. Upstream also prefers writable channels; a Connection queues instead.
   */
  getAvailableChannel(group: string | undefined): ClientChannel | undefined {
    if (group === undefined) return undefined;
    const list = [...(this.groupChannels.get(group)?.keys() ?? [])];
    if (list.length === 0) {
      this.logger.warn('Check transaction failed, channel table is empty', { group });
      return undefined;
    }
    this.counter = (this.counter + 1) & 0x7fffffff;
    let index = this.counter % list.length;
    for (let count = 0; count <= GET_AVAILABLE_CHANNEL_RETRY_COUNT; count++) {
      const channel = list[index] as ClientChannel;
      if (channel.isOpen) return channel;
      index = (index + 1) % list.length;
    }
    return undefined;
  }

  findChannel(clientId: string): ClientChannel | undefined {
    return this.clientChannels.get(clientId);
  }
}
