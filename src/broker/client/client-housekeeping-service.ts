/**
 * ClientHousekeepingService (`broker/.../client/ClientHousekeepingService.java`): a client whose
 * connection closes leaves its producer and consumer groups at once; every clientHousekeepingInterval
 * [10 s] (first after one interval) clients silent for channelExpiredTimeout [120 s] are dropped.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { ClientChannel } from './client-channel-info.js';
import type { ConsumerManager } from './consumer-manager.js';
import type { ProducerManager } from './producer-manager.js';

/** What the service watches: something that emits one 'close' per connection. */
export interface WatchedConnection extends ClientChannel {
  once(event: 'close', listener: () => void): unknown;
}

export interface ClientHousekeepingOptions {
  producerManager: ProducerManager;
  consumerManager: ConsumerManager;
  clock: Clock;
  logger: Logger;
  /** ms between scans (upstream 10 s). */
  interval: number;
}

export class ClientHousekeepingService {
  private readonly options: ClientHousekeepingOptions;
  private timer: TimerHandle | undefined;
  private running = false;

  constructor(options: ClientHousekeepingOptions) {
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  shutdown(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Watches a new connection (RemotingServer 'connection' event). */
  onChannelConnect(connection: WatchedConnection): void {
    connection.once('close', () => this.onChannelClose(connection.remoteAddress, connection));
  }

  onChannelClose(remoteAddr: string, channel: ClientChannel): void {
    this.options.producerManager.doChannelCloseEvent(remoteAddr, channel);
    this.options.consumerManager.doChannelCloseEvent(remoteAddr, channel);
  }

  /** One scan (what the timer runs). */
  scanExceptionChannel(): void {
    this.options.producerManager.scanNotActiveChannel();
    this.options.consumerManager.scanNotActiveChannel();
  }

  private schedule(): void {
    this.timer = this.options.clock.setTimeout(this.tick, this.options.interval);
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    if (!this.running) return;
    try {
      this.scanExceptionChannel();
    } catch (error) {
      this.options.logger.error('Error occurred when scan not active client channels.', {
        error: (error as Error).message,
      });
    }
    this.schedule();
  };
}
