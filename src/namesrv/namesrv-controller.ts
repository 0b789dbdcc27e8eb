/**
 * NamesrvController (`namesrv/.../NamesrvController.java`): the name server as one object. start() loads
 * kvConfig.json, listens, and schedules the scan for expired brokers (first after
 * scanNotActiveBrokerDelay, then every scanNotActiveBrokerInterval); a closing connection removes the
 * broker registered on it at once (upstream's BrokerHousekeepingService). shutdown() stops all of it
 * and waits for pending KV writes.
 */

import { type Clock, systemClock, type TimerHandle } from '../common/clock.js';
import { RocketMQError } from '../common/errors.js';
import { adoptLogger, type Logger } from '../common/logger.js';
import type { RocketMQLogger } from '../common/logger-interface.js';
import {
  type BoundAddress,
  type Connection,
  RemotingServer,
  type RemotingServerOverrides,
  resolveTlsSystemConfig,
  type TlsSystemConfig,
  tlsServerConfigOf,
} from '../remoting/transport/index.js';
import { NamesrvAcl } from './acl/namesrv-acl.js';
import { KVConfigManager } from './kvconfig/kv-config-manager.js';
import { type NamesrvSettings, namesrvSettings } from './namesrv-settings.js';
import type { NamesrvContext } from './processor/namesrv-context.js';
import { registerNamesrvProcessors } from './processor/processor-table.js';
import { RouteInfoManager } from './routeinfo/route-info-manager.js';

export interface CreateNamesrvOptions {
  /** Overrides settings.listenPort (default 9876; 0 picks a free port). */
  listenPort?: number;
  /** Overrides settings.kvConfigPath (default `~/namesrv/kvConfig.json`). */
  kvConfigPath?: string;
  clock?: Clock;
  /** Any pino-style logger; by default JSON lines on stderr at `RMQ_LOG_LEVEL`. */
  logger?: Logger | RocketMQLogger;
  settings?: Partial<NamesrvSettings>;
  /** Transport settings (their `tls` over the one below). */
  remoting?: RemotingServerOverrides;
  /** upstream's TLS system properties (`tls.server.mode`...), under tls.config.file. */
  tls?: Partial<TlsSystemConfig>;
}

type State = 'new' | 'starting' | 'running' | 'stopped';

export class NamesrvController {
  readonly settings: NamesrvSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly routeInfoManager: RouteInfoManager;
  readonly kvConfigManager: KVConfigManager;
  readonly remotingServer: RemotingServer;
  /** Plain ACL on the write requests (settings.aclEnable); undefined when off. */
  readonly acl: NamesrvAcl | undefined;
  private state: State = 'new';
  private scanTimer: TimerHandle | undefined;

  constructor(options: CreateNamesrvOptions = {}) {
    const overrides: Partial<NamesrvSettings> = { ...options.settings };
    if (options.listenPort !== undefined) overrides.listenPort = options.listenPort;
    if (options.kvConfigPath !== undefined) overrides.kvConfigPath = options.kvConfigPath;
    this.settings = namesrvSettings(overrides);
    this.clock = options.clock ?? systemClock;
    this.logger = adoptLogger(options.logger, 'namesrv');
    this.routeInfoManager = new RouteInfoManager({
      clock: this.clock,
      logger: this.logger.child('routeinfo'),
      brokerChannelExpiredTime: this.settings.brokerChannelExpiredTime,
      rejectLiveBrokerTakeover: this.settings.rejectLiveBrokerTakeover,
    });
    this.kvConfigManager = new KVConfigManager({
      kvConfigPath: this.settings.kvConfigPath,
      logger: this.logger.child('kvconfig'),
      maxEntrySize: this.settings.kvConfigMaxEntrySize,
      maxTotalSize: this.settings.kvConfigMaxTotalSize,
    });
    const tls = tlsServerConfigOf(resolveTlsSystemConfig(options.tls, { logger: this.logger }));
    this.remotingServer = new RemotingServer(
      { ...options.remoting, tls: { ...tls, ...options.remoting?.tls } },
      { logger: this.logger.child('remoting') },
    );
    const context: NamesrvContext = {
      routeInfoManager: this.routeInfoManager,
      kvConfigManager: this.kvConfigManager,
      settings: this.settings,
      remotingSettings: this.remotingServer.settings,
      clock: this.clock,
      logger: this.logger,
    };
    registerNamesrvProcessors(this.remotingServer, context);
    this.acl = this.settings.aclEnable
      ? new NamesrvAcl(this.settings, this.clock, this.logger.child('acl'))
      : undefined;
    if (this.acl !== undefined) this.remotingServer.registerRPCHook(this.acl.hook);
    this.remotingServer.on('connection', this.onConnection);
  }

  /** Where the server listens once started. */
  get address(): BoundAddress | undefined {
    return this.remotingServer.address;
  }

  /** Loads the KV config, listens, and starts the expiry scan. */
  async start(): Promise<BoundAddress> {
    if (this.state !== 'new') throw new RocketMQError(`name server cannot start: it is ${this.state}`);
    this.state = 'starting';
    try {
      await this.acl?.start();
      await this.kvConfigManager.load();
      const bound = await this.remotingServer.listen({
        port: this.settings.listenPort,
        ...(this.settings.listenHost === undefined ? {} : { host: this.settings.listenHost }),
      });
      this.scheduleScan(this.settings.scanNotActiveBrokerDelay);
      this.state = 'running';
      this.logger.info('The Name Server boot success', { address: bound.address });
      return bound;
    } catch (error) {
      this.state = 'stopped';
      this.acl?.stop();
      await this.remotingServer.close();
      throw error;
    }
  }

  /** Stops the scan, closes every connection and waits for queued KV writes. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.state === 'stopped' && this.scanTimer === undefined) return;
    this.state = 'stopped';
    this.scanTimer?.cancel();
    this.scanTimer = undefined;
    this.acl?.stop();
    await this.remotingServer.close();
    await this.kvConfigManager.flushed();
  }

  private scheduleScan(delayMs: number): void {
    this.scanTimer = this.clock.setTimeout(this.scan, delayMs);
  }

  private readonly scan = (): void => {
    this.scanTimer = undefined;
    if (this.state === 'stopped') return;
    try {
      const removed = this.routeInfoManager.scanNotActiveBroker();
      if (removed > 0) this.logger.info('expired brokers removed', { count: removed });
    } catch (error) {
      this.logger.error('scanNotActiveBroker failed', { error: (error as Error).message });
    }
    this.scheduleScan(this.settings.scanNotActiveBrokerInterval);
  };

  private readonly onConnection = (connection: Connection): void => {
    connection.once('close', () => {
      this.routeInfoManager.onChannelDestroy(connection.remoteAddress, connection);
    });
  };
}

/** A name server, not yet started: `const ns = createNamesrv({ listenPort: 0 }); await ns.start()`. */
export function createNamesrv(options: CreateNamesrvOptions = {}): NamesrvController {
  return new NamesrvController(options);
}
