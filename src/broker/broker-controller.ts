/**
 * BrokerController (`broker/.../BrokerController.java`): the broker as one object, the parts that do
 * not need the message store's internals. start() loads topics.json, consumerOffset.json and
 * subscriptionGroup.json, starts the store, listens on listenPort and on the VIP channel
 * listenPort - 2 (upstream's fastRemotingServer, which serves everything but PULL_MESSAGE), registers
 * with every name server, then keeps registering every registerNameServerPeriod (clamped to
 * [10 s, 60 s], first after registerNameServerDelay), persists consumer offsets every
 * flushConsumerOffsetInterval (first after flushConsumerOffsetDelay), drops silent clients and, on a
 * master, asks producers about transactions left open (every transactionCheckInterval).
 * shutdown() stops all of it, unregisters from the name servers and writes the offsets.
 */
import { type Clock, systemClock, type TimerHandle } from '../common/clock.js';
import { RocketMQError } from '../common/errors.js';
import { adoptLogger, type Logger } from '../common/logger.js';
import type { DataVersion } from '../common/protocol/data-version.js';
import type { TopicConfigSerializeWrapper } from '../common/protocol/register-broker-body.js';
import type { TopicConfig } from '../common/protocol/topic-config.js';
import { ConsumerFilterManager } from '../filter/consumer-filter-manager.js';
import { FilterFactory } from '../filter/filter-factory.js';
import { NamedFilterRegistry } from '../filter/named-filter.js';
import { AclClientRPCHook } from '../remoting/transport/acl-client-rpc-hook.js';
import {
  type BoundAddress,
  type Connection,
  RemotingClient,
  RemotingServer,
  type RemotingServerOverrides,
  resolveTlsSystemConfig,
  tlsClientOptionsOf,
  tlsClientSettings,
  tlsServerConfigOf,
} from '../remoting/transport/index.js';
import type { MessageStoreConfig } from '../store/config.js';
import { DefaultMessageStore } from '../store/default-message-store.js';
import type { HATransport } from '../store/ha/ha-service.js';
import { ScheduleMessageService } from '../store/schedule/schedule-message-service.js';
import { TimerMessageStore } from '../store/timer/timer-message-store.js';
import { ACL_ADMIN_CODES, AclAdminProcessor } from './acl/acl-admin-processor.js';
import { BrokerAcl } from './acl/broker-acl.js';
import { parseInnerCredentials } from './acl/outer-acl-hook.js';
import {
  type BrokerConfig,
  type BrokerConfigFileKey,
  brokerConfig,
  toMessageStoreConfig,
} from './broker-config.js';
import { remotingServerLimits } from './broker-config-remoting.js';
import { BrokerConfiguration } from './broker-configuration.js';
import { brokerHaTransport } from './broker-ha.js';
import { followsRegisteredMaster, startBrokerHA } from './broker-ha-start.js';
import { ClientHousekeepingService } from './client/client-housekeeping-service.js';
import { ConsumerManager } from './client/consumer-manager.js';
import {
  type ConsumerFilterHooks,
  DefaultConsumerIdsChangeListener,
} from './client/default-consumer-ids-change-listener.js';
import { ProducerManager } from './client/producer-manager.js';
import { RebalanceLockManager } from './client/rebalance-lock-manager.js';
import type { CreateBrokerOptions } from './create-broker-options.js';
import { BrokerHttpService } from './http/broker-http-service.js';
import { MessageRequestModeManager } from './loadbalance/message-request-mode-manager.js';
import { TopicRouteInfoManager } from './loadbalance/topic-route-info-manager.js';
import { NotifyMessageArrivingListener } from './longpolling/notify-message-arriving-listener.js';
import { PullRequestHoldService } from './longpolling/pull-request-hold-service.js';
import type { BrokerMessageStore } from './message-store.js';
import { loadNamedFilterModule } from './named-filter-loader.js';
import { ConsumerOffsetManager } from './offset/consumer-offset-manager.js';
import { type BrokerIdentity, BrokerOuterAPI, type RegisterBrokerResult } from './out/broker-outer-api.js';
import { ChangedTopicRegistration, incrementVersion } from './out/changed-topic-registration.js';
import { registrationTopics } from './out/registration-topics.js';
import { executeNotificationWhenWakeup } from './pop/notification-processor.js';
import { executePopRequestWhenWakeup } from './pop/pop-message-processor.js';
import { PopReviveServices } from './pop/pop-revive-services.js';
import { PopServices } from './pop/pop-services.js';
import type { BrokerContext, BrokerRequestHandler } from './processor/broker-context.js';
import { BROKER_REQUEST_HANDLERS, registerBrokerProcessors } from './processor/processor-table.js';
import { executeRequestWhenWakeup } from './processor/pull-message.js';
import { SlaveSynchronize } from './slave/slave-synchronize.js';
import { BrokerStats } from './stats/broker-stats.js';
import { BrokerStatsManager } from './stats/broker-stats-manager.js';
import { countScheduleDelivery, countTimerDelivery } from './stats/schedule-delivery-stats.js';
import { SubscriptionGroupManager } from './subscription/subscription-group-manager.js';
import { TopicConfigManager } from './topic/topic-config-manager.js';
import type { AbstractTransactionalMessageCheckListener } from './transaction/abstract-transactional-message-check-listener.js';
import { DefaultTransactionalMessageCheckListener } from './transaction/queue/default-transactional-message-check-listener.js';
import { TransactionalMessageBridge } from './transaction/queue/transactional-message-bridge.js';
import { TransactionalMessageServiceImpl } from './transaction/queue/transactional-message-service-impl.js';
import { TransactionalMessageCheckService } from './transaction/transactional-message-check-service.js';
import type { TransactionalMessageService } from './transaction/transactional-message-service.js';

/** Upstream clamps registerNameServerPeriod to this range. */
export const REGISTER_PERIOD_MIN = 10_000;
export const REGISTER_PERIOD_MAX = 60_000;
/** Upstream forgets dead consumer filters on its 10 s consumerFilter persist schedule. */
export const CONSUMER_FILTER_CLEAN_INTERVAL = 10_000;

export type { CreateBrokerOptions };

type State = 'new' | 'starting' | 'running' | 'stopped';

export interface BrokerAddresses {
  /** The main port. */
  address: BoundAddress;
  /** The VIP channel (listenPort - 2). */
  vipAddress: BoundAddress;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class BrokerController implements BrokerContext {
  readonly config: BrokerConfig;
  /** The store's view of the settings; UPDATE_BROKER_CONFIG patches it too. */
  readonly storeConfig: MessageStoreConfig;
  readonly configuration: BrokerConfiguration;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly messageStore: BrokerMessageStore;
  readonly brokerStatsManager: BrokerStatsManager;
  readonly brokerStats: BrokerStats;
  /** The store this broker built itself (it learns the bound address once listening). */
  private readonly ownStore: DefaultMessageStore | undefined;
  /** Delivers delayed and retried messages (over a DefaultMessageStore; runs on a master only). */
  readonly scheduleMessageService: ScheduleMessageService | undefined;
  /** Gives out timer messages when due (over a DefaultMessageStore; runs on a master only). */
  readonly timerMessageStore: TimerMessageStore | undefined;
  readonly consumerFilter: ConsumerFilterHooks | undefined;
  /** upstream's consumerFilterManager: the groups' SQL92 filters, fed by heartbeats unless replaced. */
  readonly consumerFilterManager: ConsumerFilterManager;
  /** The operator's named filters (namedFilterModule), installed by start(); NAMED compiles against it. */
  readonly namedFilters: NamedFilterRegistry;
  readonly pullRequestHoldService: PullRequestHoldService;
  /** POP_MESSAGE's side: FIFO order state, pop long polling, pop locks and counters. */
  readonly pop: PopServices;
  readonly topicConfigManager: TopicConfigManager;
  readonly subscriptionGroupManager: SubscriptionGroupManager;
  readonly messageRequestModeManager: MessageRequestModeManager;
  readonly topicRouteInfoManager: TopicRouteInfoManager;
  readonly consumerOffsetManager: ConsumerOffsetManager;
  readonly producerManager: ProducerManager;
  readonly consumerManager: ConsumerManager;
  readonly rebalanceLockManager: RebalanceLockManager;
  readonly clientHousekeepingService: ClientHousekeepingService;
  readonly remotingServer: RemotingServer;
  /** upstream's fastRemotingServer: the VIP channel on listenPort - 2. */
  readonly fastRemotingServer: RemotingServer;
  readonly remotingClient: RemotingClient;
  readonly brokerOuterAPI: BrokerOuterAPI;
  readonly transactionalMessageService: TransactionalMessageService;
  readonly transactionalMessageCheckListener: AbstractTransactionalMessageCheckListener;
  /** Asks producers about half messages left unsettled (runs on a master only). */
  readonly transactionalMessageCheckService: TransactionalMessageCheckService;
  readonly popRevive: PopReviveServices;
  /** Plain ACL (aclEnable): the accounts and the hook on both servers; undefined when off. */
  readonly acl: BrokerAcl | undefined;
  /** The dashboard and /metrics HTTP servers (dashboardPort, metricsPort; both off by default). */
  readonly http: BrokerHttpService;
  /** On a slave, copies the master's topics, groups, consumer and delay offsets on a schedule. */
  readonly slaveSynchronize: SlaveSynchronize;
  private state: State = 'new';
  private registerTimer: TimerHandle | undefined;
  private offsetTimer: TimerHandle | undefined;
  private filterCleanTimer: TimerHandle | undefined;
  private registration: Promise<void> = Promise.resolve();
  /** Topics created or changed by sends, registered in batches. */
  private readonly changedTopics: ChangedTopicRegistration;
  /** Increments registered so far: each gets a version of its own (incrementVersion). */
  private changedTopicBatches = 0n;
  private boundPort: number | undefined;
  private lastMasterAddr: string | undefined;
  private lastHaMasterAddr: string | undefined;
  /** Where the HA service listens once started. */
  private haPort: number | undefined;
  /** TLS and the signed handshake of the HA service (broker-ha.ts). */
  private readonly haTransport: HATransport;

  constructor(options: CreateBrokerOptions = {}) {
    this.config = brokerConfig(options.config, options.env);
    this.storeConfig = toMessageStoreConfig(this.config);
    this.clock = options.clock ?? systemClock;
    this.changedTopics = new ChangedTopicRegistration({
      clock: this.clock,
      delay: () => this.config.registerChangedTopicsDelay,
      register: (topics) => this.registerChangedTopics(topics),
    });
    this.logger = adoptLogger(options.logger, 'broker');
    this.configuration = new BrokerConfiguration(this.config, this.clock, options.extraProperties);
    if (options.messageStore === undefined) {
      this.ownStore = new DefaultMessageStore(this.storeConfig, {
        clock: this.clock,
        logger: this.logger.child('store'),
        brokerRole: this.config.brokerRole,
        offsetCheckInSlave: this.config.offsetCheckInSlave,
        messageDelayLevel: this.config.messageDelayLevel,
        retention: { cleanResourceInterval: this.config.cleanResourceInterval },
        // Upstream re-checks a full disk at each retention round; a write out of space waits as long.
        commitLog: {
          diskFullRetryInterval: this.config.cleanResourceInterval,
          ...(options.onRecoveryProgress === undefined
            ? {}
            : { onRecoveryProgress: options.onRecoveryProgress }),
        },
      });
      this.messageStore = this.ownStore;
    } else {
      this.ownStore = undefined;
      this.messageStore = options.messageStore;
    }
    this.scheduleMessageService =
      this.messageStore instanceof DefaultMessageStore
        ? new ScheduleMessageService(this.messageStore, {
            messageDelayLevel: this.config.messageDelayLevel,
            flushDelayOffsetInterval: this.config.flushDelayOffsetInterval,
            clock: this.clock,
            logger: this.logger.child('schedule'),
            onDelivered: (level, topic, result) =>
              countScheduleDelivery(this.brokerStatsManager, level, topic, result),
          })
        : undefined;
    this.timerMessageStore =
      this.messageStore instanceof DefaultMessageStore
        ? new TimerMessageStore(this.messageStore, {
            timerWheelEnable: this.config.timerWheelEnable,
            timerMaxDelaySec: this.config.timerMaxDelaySec,
            timerPrecisionMs: this.config.timerPrecisionMs,
            timerFlushIntervalMs: this.config.timerFlushIntervalMs,
            timerCongestNumEachSlot: this.config.timerCongestNumEachSlot,
            timerStopDequeue: this.config.timerStopDequeue,
            clock: this.clock,
            logger: this.logger.child('timer'),
            onDelivered: (topic, result) => countTimerDelivery(this.brokerStatsManager, topic, result),
          })
        : undefined;
    this.brokerStatsManager = new BrokerStatsManager({
      clusterName: this.config.brokerClusterName,
      clock: this.clock,
      maxStatsItemsPerSet: this.config.maxStatsItemsPerSet,
    });
    this.brokerStats = new BrokerStats(this.messageStore, this.clock, this.logger.child('stats'));
    this.namedFilters = new NamedFilterRegistry({
      logger: this.logger.child('namedFilter'),
      configureHint: 'broker.conf namedFilterModule is empty',
      timeoutMillis: this.config.namedFilterTimeoutMillis,
      maxTimeouts: this.config.namedFilterMaxTimeouts,
    });
    this.consumerFilterManager = new ConsumerFilterManager({
      logger: this.logger.child('filter'),
      clock: this.clock,
      filterDataCleanTimeSpan: this.config.filterDataCleanTimeSpan,
      factory: new FilterFactory({
        namedFilters: this.namedFilters,
        maxLength: this.config.filterExpressionMaxLength,
        maxDepth: this.config.filterExpressionMaxDepth,
        cacheSize: this.config.filterExpressionCacheSize,
      }),
    });
    this.consumerFilter = options.consumerFilter ?? this.consumerFilterManager;
    const config = this.config;
    const io = options.configFileIO === undefined ? {} : { io: options.configFileIO };
    this.topicConfigManager = new TopicConfigManager({
      config,
      clock: this.clock,
      logger: this.logger.child('topic'),
      ...io,
      onTopicConfigChanged: (topicConfig) => this.changedTopics.changed(topicConfig),
    });
    this.subscriptionGroupManager = new SubscriptionGroupManager({
      config,
      clock: this.clock,
      logger: this.logger.child('subscription'),
      ...io,
    });
    this.messageRequestModeManager = new MessageRequestModeManager({
      config,
      logger: this.logger.child('messageRequestMode'),
      ...io,
    });
    this.consumerOffsetManager = new ConsumerOffsetManager({
      config,
      logger: this.logger.child('offset'),
      ...io,
    });
    const clientLogger = this.logger.child('client');
    this.producerManager = new ProducerManager({
      clock: this.clock,
      logger: clientLogger,
      channelExpiredTimeout: config.channelExpiredTimeout,
    });
    this.consumerManager = new ConsumerManager({
      listener: new DefaultConsumerIdsChangeListener(config, clientLogger, this.consumerFilter),
      clock: this.clock,
      logger: clientLogger,
      channelExpiredTimeout: config.channelExpiredTimeout,
    });
    this.rebalanceLockManager = new RebalanceLockManager({
      clock: this.clock,
      logger: this.logger.child('rebalanceLock'),
    });
    this.pullRequestHoldService = new PullRequestHoldService({
      config,
      store: this.messageStore,
      clock: this.clock,
      logger: this.logger.child('longPolling'),
      wakeUp: (pullRequest) => executeRequestWhenWakeup(this, pullRequest),
    });
    const arriving = new NotifyMessageArrivingListener(this.pullRequestHoldService, config);
    this.messageStore.onMessageArrived(arriving.arriving, arriving.interest);
    this.pop = new PopServices({
      config,
      clock: this.clock,
      logger: this.logger.child('pop'),
      io: options.configFileIO,
      messageStore: this.messageStore,
      topicConfigManager: this.topicConfigManager,
      subscriptionGroupManager: this.subscriptionGroupManager,
      wakeUp: (request) => executePopRequestWhenWakeup(this, request),
      wakeUpNotification: (request) => executeNotificationWhenWakeup(this, request),
    });
    this.clientHousekeepingService = new ClientHousekeepingService({
      producerManager: this.producerManager,
      consumerManager: this.consumerManager,
      clock: this.clock,
      logger: clientLogger,
      interval: config.clientHousekeepingInterval,
    });
    const tls = resolveTlsSystemConfig(options.tls, { logger: this.logger });
    const serverSettings: RemotingServerOverrides = {
      serverChannelMaxIdleTimeSeconds: config.serverChannelMaxIdleTimeSeconds,
      serverSocketBacklog: config.serverSocketBacklog,
      requestBodyMaxSize: config.requestBodyMaxSize,
      ...remotingServerLimits(config),
      ...options.remoting,
      tls: { ...tlsServerConfigOf(tls), ...options.remoting?.tls },
    };
    const remotingLogger = this.logger.child('remoting');
    this.remotingServer = new RemotingServer(serverSettings, { logger: remotingLogger });
    this.fastRemotingServer = new RemotingServer(serverSettings, { logger: remotingLogger.child('vip') });
    this.remotingClient = new RemotingClient(
      {
        connectTimeoutMs: config.connectTimeoutMillis,
        clientChannelMaxIdleTimeSeconds: config.clientChannelMaxIdleTimeSeconds,
        clientCloseSocketIfTimeout: config.clientCloseSocketIfTimeout,
        tls: tlsClientSettings(tlsClientOptionsOf(tls)),
      },
      { logger: this.logger.child('outer') },
    );
    const innerCredentials = parseInnerCredentials(config.innerClientAuthenticationCredentials);
    if (innerCredentials !== undefined) {
      this.remotingClient.registerRPCHook(new AclClientRPCHook(innerCredentials));
    }
    this.brokerOuterAPI = new BrokerOuterAPI(this.remotingClient, this.logger.child('outer'));
    this.topicRouteInfoManager = new TopicRouteInfoManager(
      this.brokerOuterAPI,
      config,
      () => this.clock.now(),
      this.logger.child('topicRoute'),
    );
    this.slaveSynchronize = new SlaveSynchronize({
      host: this,
      masterAddr: () => this.masterAddr,
      remotingClient: this.remotingClient,
      clock: this.clock,
      logger: this.logger.child('slaveSync'),
    });
    const transactionLogger = this.logger.child('transaction');
    this.transactionalMessageService = new TransactionalMessageServiceImpl(
      new TransactionalMessageBridge(this),
      {
        clock: this.clock,
        logger: transactionLogger,
        fileReservedTime: () => this.storeConfig.fileReservedTime,
      },
    );
    this.transactionalMessageCheckListener = new DefaultTransactionalMessageCheckListener(this);
    this.transactionalMessageCheckService = new TransactionalMessageCheckService({
      config,
      service: this.transactionalMessageService,
      listener: this.transactionalMessageCheckListener,
      clock: this.clock,
      logger: transactionLogger,
    });
    this.popRevive = new PopReviveServices(this, this.logger.child('popRevive'));
    this.acl = config.aclEnable
      ? new BrokerAcl(config, this.clock, this.logger.child('acl'), this.messageStore)
      : undefined;
    this.haTransport = brokerHaTransport({
      config,
      acl: this.acl,
      tlsServer: serverSettings.tls ?? {},
      tls,
      clock: this.clock,
      logger: this.logger.child('ha'),
    });
    this.http = new BrokerHttpService(this, this.logger.child('http'));
    const aclAdmin = new AclAdminProcessor(this, this.acl);
    for (const server of [this.remotingServer, this.fastRemotingServer]) {
      if (this.acl !== undefined) server.registerRPCHook(this.acl.hook);
      for (const code of ACL_ADMIN_CODES) server.registerProcessor(code, aclAdmin);
    }
    const handlers = new Map(BROKER_REQUEST_HANDLERS);
    for (const [code, handler] of options.handlers ?? []) handlers.set(code, handler);
    registerBrokerProcessors(this.remotingServer, this, handlers);
    registerBrokerProcessors(this.fastRemotingServer, this, handlers, { vip: true });
    const watch = (connection: Connection) => this.clientHousekeepingService.onChannelConnect(connection);
    this.remotingServer.on('connection', watch);
    this.fastRemotingServer.on('connection', watch);
  }

  /**
   * Serves `code` with `handler` on the main port and (unless the code is in NOT_ON_VIP_CHANNEL, as
   * PULL_MESSAGE is) on the VIP channel; replaces a handler already registered for the code.
   */
  registerHandler(code: number, handler: BrokerRequestHandler): void {
    const one = new Map([[code, handler]]);
    registerBrokerProcessors(this.remotingServer, this, one);
    registerBrokerProcessors(this.fastRemotingServer, this, one, { vip: true });
  }

  /** Where the main server listens once started. */
  get address(): BoundAddress | undefined {
    return this.remotingServer.address;
  }

  /** Where the VIP channel listens once started. */
  get vipAddress(): BoundAddress | undefined {
    return this.fastRemotingServer.address;
  }

  /** The port clients use: the bound one once started (listenPort 0 picks one), else listenPort. */
  get listenPort(): number {
    return this.boundPort ?? this.config.listenPort;
  }

  /** `brokerIP1:listenPort`, the address name servers and clients know the broker by. */
  get brokerAddr(): string {
    return `${this.config.brokerIP1}:${this.listenPort}`;
  }

  /** `brokerIP2:haPort`: the bound HA port once started, else listenPort + 1. */
  get haServerAddr(): string {
    const port = this.haPort ?? this.listenPort + 1;
    return `${this.config.brokerIP2}:${port}`;
  }

  /** The master's address the name server gave this (slave) broker on the last registration. */
  get masterAddr(): string | undefined {
    return this.lastMasterAddr;
  }

  /** The master's HA address the name server gave on the last registration. */
  get haMasterAddr(): string | undefined {
    return this.lastHaMasterAddr;
  }

  private get identity(): BrokerIdentity {
    return {
      clusterName: this.config.brokerClusterName,
      brokerAddr: this.brokerAddr,
      brokerName: this.config.brokerName,
      brokerId: this.config.brokerId,
    };
  }

  /** Loads the metadata files, starts the store, listens, registers and starts the timers. */
  async start(): Promise<BrokerAddresses> {
    if (this.state !== 'new') throw new RocketMQError(`broker cannot start: it is ${this.state}`);
    this.state = 'starting';
    try {
      // First: a broker whose ACL files do not load does not start (every request would be refused).
      await this.acl?.start();
      // A broker whose NAMED subscriptions cannot be honoured does not start either.
      if (this.config.namedFilterModule !== '') {
        this.namedFilters.configure(await loadNamedFilterModule(this.config.namedFilterModule));
        this.logger.info('named filters loaded', {
          module: this.config.namedFilterModule,
          filters: this.namedFilters.names.join(','),
        });
      }
      await this.topicConfigManager.load();
      await this.consumerOffsetManager.load();
      await this.subscriptionGroupManager.load();
      await this.messageRequestModeManager.load();
      await this.pop.load();
      await this.messageStore.load();
      await this.messageStore.start();
      // Upstream loads the delay offsets with the store and delivers only on a master.
      await this.scheduleMessageService?.load();
      if (this.config.brokerRole !== 'SLAVE') this.scheduleMessageService?.start();
      await this.timerMessageStore?.load();
      if (this.config.brokerRole !== 'SLAVE') this.timerMessageStore?.start();
      const host = this.config.listenHost;
      const address = await this.remotingServer.listen({
        port: this.config.listenPort,
        ...(host === undefined ? {} : { host }),
      });
      this.boundPort = address.port;
      if (this.ownStore !== undefined) {
        this.ownStore.brokerStoreHost = { address: this.config.brokerIP1, port: address.port };
      }
      const vipAddress = await this.fastRemotingServer.listen({
        port: this.config.listenPort === 0 ? 0 : this.config.listenPort - 2,
        ...(host === undefined ? {} : { host }),
      });
      await this.startHA();
      await this.http.start();
      this.brokerOuterAPI.updateNameServerAddressList(this.config.namesrvAddr);
      this.clientHousekeepingService.start();
      this.brokerStatsManager.start();
      this.brokerStats.start();
      this.pullRequestHoldService.start();
      this.pop.start();
      // startProcessorByHa: a master asks producers about unsettled half messages.
      if (this.config.brokerRole !== 'SLAVE') this.transactionalMessageCheckService.start();
      // Upstream runs POP revive on the master only (shouldRunPopRevive = brokerId == 0).
      if (this.config.brokerRole !== 'SLAVE') this.popRevive.start();
      this.offsetTimer = this.clock.setTimeout(this.persistOffsets, this.config.flushConsumerOffsetDelay);
      this.filterCleanTimer = this.clock.setTimeout(this.cleanFilters, CONSUMER_FILTER_CLEAN_INTERVAL);
      this.state = 'running';
      this.slaveSynchronize.handleSlaveSynchronize(this.config.brokerRole);
      await this.registerBrokerAll(true, false, true);
      this.registerTimer = this.clock.setTimeout(this.periodicRegister, this.config.registerNameServerDelay);
      this.logger.info('The broker boot success', {
        brokerName: this.config.brokerName,
        address: this.brokerAddr,
        namesrvAddr: this.config.namesrvAddr,
      });
      return { address, vipAddress };
    } catch (error) {
      this.state = 'stopped';
      this.acl?.stop();
      this.clientHousekeepingService.shutdown();
      this.brokerStatsManager.shutdown();
      this.brokerStats.shutdown();
      this.pullRequestHoldService.shutdown();
      this.pop.popLongPollingService.shutdown();
      this.pop.notificationPollingService.shutdown();
      this.pop.consumerOrderInfoManager.shutdown();
      this.offsetTimer?.cancel();
      this.filterCleanTimer?.cancel();
      await this.slaveSynchronize.shutdown();
      await this.transactionalMessageCheckService.shutdown();
      await this.popRevive.shutdown();
      await Promise.all([
        this.remotingServer.close(),
        this.fastRemotingServer.close(),
        this.remotingClient.close(),
        this.http.shutdown(),
      ]);
      await this.scheduleMessageService?.shutdown();
      await this.timerMessageStore?.shutdown();
      await this.messageStore.shutdown().catch((e: unknown) => {
        this.logger.error('message store shutdown failed', { error: describe(e) });
      });
      throw error;
    }
  }

  /**
   * Stops the timers and servers, shuts the store down, unregisters from every name server and
   * writes every table. Idempotent. A broker never started only closes the connections it was
   * handed (nothing is written).
   */
  async shutdown(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasRunning = this.state === 'running';
    const neverStarted = this.state === 'new';
    this.state = 'stopped';
    if (neverStarted) {
      // Nothing was loaded, so nothing is written: the tables hold only built-in entries.
      await Promise.all([
        this.remotingServer.close(),
        this.fastRemotingServer.close(),
        this.remotingClient.close(),
      ]);
      return;
    }
    this.acl?.stop();
    this.clientHousekeepingService.shutdown();
    this.brokerStatsManager.shutdown();
    this.brokerStats.shutdown();
    this.pullRequestHoldService.shutdown();
    this.pop.popLongPollingService.shutdown();
    this.pop.notificationPollingService.shutdown();
    this.pop.consumerOrderInfoManager.shutdown();
    this.registerTimer?.cancel();
    this.changedTopics.stop();
    this.offsetTimer?.cancel();
    this.filterCleanTimer?.cancel();
    this.filterCleanTimer = undefined;
    this.registerTimer = undefined;
    this.offsetTimer = undefined;
    // A sync round under way finishes writing its files first.
    await this.slaveSynchronize.shutdown();
    await Promise.all([this.remotingServer.close(), this.fastRemotingServer.close(), this.http.shutdown()]);
    // Before the store: a check pass under way finishes its writes.
    await this.transactionalMessageCheckService.shutdown();
    this.transactionalMessageCheckListener.shutDown();
    this.transactionalMessageService.close();
    // Before the store: a revive round under way finishes its re-puts.
    await this.popRevive.shutdown();
    // Before the store: the deliveries under way finish and the delay offsets are written.
    await this.scheduleMessageService?.shutdown();
    await this.timerMessageStore?.shutdown();
    try {
      await this.messageStore.shutdown();
    } catch (error) {
      this.logger.error('message store shutdown failed', { error: describe(error) });
    }
    await this.registration;
    if (wasRunning) {
      await this.brokerOuterAPI.unregisterBrokerAll(this.identity, this.config.unregisterBrokerTimeoutMills);
    }
    await this.remotingClient.close();
    void this.consumerOffsetManager.persist(true);
    void this.pop.persist();
    await Promise.all([
      this.consumerOffsetManager.flushed(),
      this.pop.consumerOrderInfoManager.flushed(),
      this.topicConfigManager.flushed(),
      this.subscriptionGroupManager.flushed(),
      this.messageRequestModeManager.flushed(),
    ]);
  }

  /**
   * Registers every topic with every name server (upstream `registerBrokerAll`). Without
   * forceRegister it first asks whether any name server's copy is stale. Registrations run one at
   * a time; never rejects.
   */
  registerBrokerAll(checkOrderConfig: boolean, oneway: boolean, forceRegister: boolean): Promise<void> {
    return this.serialized(async () => {
      const wrapper = registrationTopics(
        this.topicConfigManager.buildTopicConfigSerializeWrapper(),
        this.config.brokerPermission,
      );
      if (!forceRegister) {
        const changes = await this.brokerOuterAPI.needRegister(
          this.identity,
          wrapper.dataVersion,
          this.config.registerBrokerTimeoutMills,
        );
        if (!changes.some((c) => c)) return;
      }
      await this.doRegisterBrokerAll(checkOrderConfig, oneway, wrapper);
    });
  }

  /**
   * Registers the topics sends created or changed, oneway and alone (changed-topic-registration.ts),
   * under a DataVersion the table never has, so that the next periodic registration reconciles.
   */
  private registerChangedTopics(topics: ReadonlyMap<string, Readonly<TopicConfig>>): Promise<void> {
    return this.serialized(async () => {
      const table = new Map<string, TopicConfig>();
      for (const [name, config] of topics) table.set(name, { ...config });
      this.changedTopicBatches += 1n;
      const dataVersion = incrementVersion(this.topicConfigManager.dataVersion, this.changedTopicBatches);
      await this.doRegisterBrokerAll(
        false,
        true,
        registrationTopics({ topicConfigTable: table, dataVersion }, this.config.brokerPermission),
      );
    });
  }

  /** Registers one topic (UPDATE_AND_CREATE_TOPIC), checking the order config of the reply. */
  registerIncrementBrokerData(topicConfig: TopicConfig, dataVersion: DataVersion): Promise<void> {
    return this.serialized(async () => {
      const table = new Map([[topicConfig.topicName, topicConfig]]);
      const wrapper = registrationTopics(
        { topicConfigTable: table, dataVersion: { ...dataVersion } },
        this.config.brokerPermission,
      );
      await this.doRegisterBrokerAll(true, false, wrapper);
    });
  }

  private serialized(task: () => Promise<void>): Promise<void> {
    const run = this.registration.then(async () => {
      if (this.state !== 'running') return;
      try {
        await task();
      } catch (error) {
        this.logger.error('registerBrokerAll Exception', { error: describe(error) });
      }
    });
    this.registration = run;
    return run;
  }

  private async doRegisterBrokerAll(
    checkOrderConfig: boolean,
    oneway: boolean,
    wrapper: TopicConfigSerializeWrapper,
  ): Promise<void> {
    const results = await this.brokerOuterAPI.registerBrokerAll({
      ...this.identity,
      haServerAddr: this.haServerAddr,
      topicConfigWrapper: wrapper,
      filterServerList: [],
      oneway,
      timeoutMills: this.config.registerBrokerTimeoutMills,
      compressed: this.config.compressedRegister,
    });
    this.applyRegisterResult(results[0], checkOrderConfig);
  }

  private applyRegisterResult(result: RegisterBrokerResult | undefined, checkOrderConfig: boolean): void {
    if (result === undefined) return;
    if (result.haServerAddr !== undefined) this.lastHaMasterAddr = result.haServerAddr;
    // Upstream updateMasterHAServerAddrPeriodically: a slave without haMasterAddress follows the
    // master the name server names.
    if (
      followsRegisteredMaster(this.config) &&
      result.haServerAddr !== undefined &&
      result.haServerAddr !== ''
    ) {
      this.haStore?.haService.updateMasterAddress(result.haServerAddr);
    }
    this.lastMasterAddr = result.masterAddr;
    if (checkOrderConfig) this.topicConfigManager.updateOrderTopicConfig(result.kvTable);
  }

  /** The store whose HA service this broker runs (a DefaultMessageStore, its own or given). */
  private get haStore(): DefaultMessageStore | undefined {
    return this.messageStore instanceof DefaultMessageStore ? this.messageStore : undefined;
  }

  private async startHA(): Promise<void> {
    const store = this.haStore;
    if (store === undefined) return;
    this.haPort = await startBrokerHA(
      store.haService,
      this.haTransport,
      this.config,
      this.listenPort,
      this.logger,
    );
  }

  onConfigUpdated(keys: readonly BrokerConfigFileKey[]): void {
    const derived = toMessageStoreConfig(this.config);
    const target = this.storeConfig as unknown as Record<string, unknown>;
    for (const key of keys) {
      if (Object.hasOwn(derived, key)) target[key] = (derived as unknown as Record<string, unknown>)[key];
    }
  }

  private readonly periodicRegister = (): void => {
    this.registerTimer = undefined;
    if (this.state !== 'running') return;
    void this.registerBrokerAll(true, false, this.config.forceRegister);
    const period = Math.max(
      REGISTER_PERIOD_MIN,
      Math.min(this.config.registerNameServerPeriod, REGISTER_PERIOD_MAX),
    );
    this.registerTimer = this.clock.setTimeout(this.periodicRegister, period);
  };

  private readonly cleanFilters = (): void => {
    this.filterCleanTimer = undefined;
    if (this.state !== 'running') return;
    this.consumerFilterManager.clean();
    this.filterCleanTimer = this.clock.setTimeout(this.cleanFilters, CONSUMER_FILTER_CLEAN_INTERVAL);
  };

  private readonly persistOffsets = (): void => {
    this.offsetTimer = undefined;
    if (this.state !== 'running') return;
    void this.consumerOffsetManager.persist();
    void this.pop.persist();
    this.offsetTimer = this.clock.setTimeout(this.persistOffsets, this.config.flushConsumerOffsetInterval);
  };
}

/** A broker, not yet started: `const b = createBroker({ config: { listenPort: 0 } }); await b.start()`. */
export function createBroker(options: CreateBrokerOptions = {}): BrokerController {
  return new BrokerController(options);
}
