/**
 * MQClientInstance: what every producer and consumer of one client id shares: the RemotingClient
 * (one connection per broker), the name server list, the route cache and broker address table,
 * heartbeats carrying every group, and the processors of requests brokers send to clients.
 *
 * Timers (on the config's Clock), as upstream starts them: route refresh every
 * pollNameServerInterval (first after 10 ms), offline-broker cleanup plus heartbeat every
 * heartbeatBrokerInterval (first after 1 s), consumer offset persist every
 * persistConsumerOffsetInterval (first after 10 s).
 */
import { MixAll, TopicName } from '../../common/constants.js';
import { javaStringHashCode } from '../../common/java-hash.js';
import type { Logger } from '../../common/logger.js';
import { encodeHeartbeatData, type HeartbeatData } from '../../common/protocol/heartbeat-data.js';
import type { TopicRouteData } from '../../common/protocol/route.js';
import { SerializeType } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { AclClientRPCHook } from '../../remoting/transport/acl-client-rpc-hook.js';
import { RemotingClient } from '../../remoting/transport/remoting-client.js';
import { buildMQClientId, type ClientConfig } from '../client-config.js';
import { heartbeatFailureChannel, routeChangeChannel } from '../diagnostics.js';
import { errorText, MQBrokerError } from '../errors.js';
import { type ClientRemotingHost, registerClientProcessors } from './client-remoting-processor.js';
import type { InnerProducer, MQConsumerInner, MQProducerInner } from './inner.js';
import { MQAdminImpl } from './mq-admin-impl.js';
import { type CallOptions, MQClientAPI } from './mq-client-api.js';
import { RebalanceService } from './rebalance-service.js';
import { RepeatingTask } from './repeating-task.js';
import {
  buildCheckClientConfigRequest,
  parseCheckClientConfigResponse,
} from './requests/check-client-config.js';
import {
  buildGetConsumerListByGroupRequest,
  parseGetConsumerListByGroupResponse,
} from './requests/get-consumer-list-by-group.js';
import {
  cloneTopicRouteData,
  topicRouteData2TopicPublishInfo,
  topicRouteData2TopicSubscribeInfo,
  topicRouteDataIsChange,
} from './topic-route.js';

const MASTER_ID = 0;
const ROUTE_FIRST_DELAY_MS = 10;
const HEARTBEAT_FIRST_DELAY_MS = 1_000;
const PERSIST_FIRST_DELAY_MS = 10_000;

export type ServiceState = 'CREATE_JUST' | 'RUNNING' | 'SHUTDOWN_ALREADY' | 'START_FAILED';

/** upstream FindBrokerResult: where to send a consumer's request for a broker name. */
export interface FindBrokerResult {
  readonly brokerAddr: string;
  readonly slave: boolean;
  /** The broker's MQVersion ordinal from its last heartbeat answer, 0 when unknown. */
  readonly brokerVersion: number;
}

/** What the route of a topic that has none yet is made from (a producer's auto-create template). */
export interface DefaultRouteSource {
  readonly createTopicKey: string;
  readonly defaultTopicQueueNums: number;
}

export class MQClientInstance implements ClientRemotingHost {
  readonly clientId: string;
  readonly config: ClientConfig;
  readonly remoting: RemotingClient;
  /** Signs every request when the first client of this id gave credentials. */
  readonly aclHook: AclClientRPCHook | undefined;
  readonly api: MQClientAPI;
  readonly admin: MQAdminImpl;
  readonly logger: Logger;
  /** topic -> the route last read from a name server. */
  readonly topicRouteTable = new Map<string, TopicRouteData>();
  /** brokerName -> brokerId -> address, from the routes in use. */
  readonly brokerAddrTable = new Map<string, Map<number, string>>();
  /** brokerName -> address -> the broker's MQVersion ordinal (from heartbeat answers). */
  readonly brokerVersionTable = new Map<string, Map<string, number>>();
  private readonly producerTable = new Map<string, MQProducerInner>();
  private readonly consumerTable = new Map<string, MQConsumerInner>();
  /** Admin clients (upstream's adminExtTable): they keep the instance alive but send no heartbeat. */
  private readonly adminExtTable = new Set<string>();
  private readonly routeUpdates = new Map<string, Promise<boolean>>();
  /** Why the last route request of a topic failed, until one succeeds. */
  private readonly routeErrors = new Map<string, unknown>();
  /** Topics whose cached route is createTopicKey's: sent to before the name servers knew them. */
  private readonly templateRoutes = new Set<string>();
  private readonly brokerSupportV2 = new Map<string, boolean>();
  private readonly heartbeatFingerprints = new Map<string, number>();
  /** Broker addresses a heartbeat is out to, so a connection a heartbeat opened brings no second one. */
  private readonly heartbeatsInFlight = new Set<string>();
  /** Broker addresses this instance was connected to once: the next connection is a reconnect. */
  private readonly brokersConnected = new Set<string>();
  private readonly tasks: RepeatingTask[];
  private readonly rebalanceService: RebalanceService;
  /** The instance's own producer (CLIENT_INNER_PRODUCER), made by the first consumer that needs it. */
  private innerProducer: InnerProducer | undefined;
  private readonly onShutdown: (instance: MQClientInstance) => void;
  private heartbeat: Promise<void> | undefined;
  private heartbeatAgain = false;
  private shuttingDown: Promise<void> | undefined;
  private state: ServiceState = 'CREATE_JUST';

  constructor(config: ClientConfig, onShutdown: (instance: MQClientInstance) => void = () => {}) {
    this.config = config;
    this.clientId = buildMQClientId(config);
    this.logger = config.logger.child('instance');
    this.onShutdown = onShutdown;
    this.remoting = new RemotingClient(
      {
        defaultInvokeTimeoutMs: config.mqClientApiTimeout,
        serializeType: SerializeType[config.serializeType],
        ...config.remoting,
      },
      { logger: config.logger.child('remoting') },
    );
    if (config.rpcHook !== undefined) this.remoting.registerRPCHook(config.rpcHook);
    // Last, so the signature covers whatever the other hook added.
    if (config.credentials !== undefined) {
      this.aclHook = new AclClientRPCHook(config.credentials);
      this.remoting.registerRPCHook(this.aclHook);
    }
    this.api = new MQClientAPI(this.remoting, config.namesrvAddrList);
    this.admin = new MQAdminImpl(this);
    registerClientProcessors(this.remoting, this);
    this.remoting.on('connected', (address) => this.onBrokerConnected(address));
    const clock = config.clock;
    this.rebalanceService = new RebalanceService(
      clock,
      config.rebalanceWaitInterval,
      () => this.doRebalance(),
      this.logger,
    );
    this.tasks = [
      new RepeatingTask(
        clock,
        'updateTopicRouteInfoFromNameServer',
        config.pollNameServerInterval,
        () => this.updateAllTopicRoutes(),
        this.logger,
      ),
      new RepeatingTask(
        clock,
        'sendHeartbeatToAllBroker',
        config.heartbeatBrokerInterval,
        () => {
          this.cleanOfflineBroker();
          return this.sendHeartbeatToAllBrokerWithLock();
        },
        this.logger,
      ),
      new RepeatingTask(
        clock,
        'persistAllConsumerOffset',
        config.persistConsumerOffsetInterval,
        () => this.persistAllConsumerOffset(),
        this.logger,
      ),
    ];
  }

  get namespace(): string | undefined {
    return this.config.namespace;
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  /** Starts the timers; idempotent while running. */
  start(): void {
    if (this.state === 'RUNNING') return;
    if (this.state !== 'CREATE_JUST') {
      throw new Error(`client instance ${this.clientId} cannot start: ${this.state}`);
    }
    const [routes, heartbeat, persist] = this.tasks as [RepeatingTask, RepeatingTask, RepeatingTask];
    routes.start(ROUTE_FIRST_DELAY_MS);
    heartbeat.start(HEARTBEAT_FIRST_DELAY_MS);
    persist.start(PERSIST_FIRST_DELAY_MS);
    this.rebalanceService.start();
    this.state = 'RUNNING';
    this.logger.info('client instance started', { clientId: this.clientId });
  }

  registerProducer(group: string, producer: MQProducerInner): boolean {
    if (this.producerTable.has(group)) return false;
    this.producerTable.set(group, producer);
    return true;
  }

  registerConsumer(group: string, consumer: MQConsumerInner): boolean {
    if (this.consumerTable.has(group)) return false;
    this.consumerTable.set(group, consumer);
    return true;
  }

  /** Forgets the group and tells every known broker (UNREGISTER_CLIENT); failures are logged. */
  async unregisterProducer(group: string): Promise<void> {
    if (!this.producerTable.delete(group)) return;
    await this.unregisterClient(group, undefined);
  }

  async unregisterConsumer(group: string): Promise<void> {
    if (!this.consumerTable.delete(group)) return;
    await this.unregisterClient(undefined, group);
  }

  /** upstream `registerAdminExt`: false when the group is already registered. */
  registerAdminExt(group: string): boolean {
    if (this.adminExtTable.has(group)) return false;
    this.adminExtTable.add(group);
    return true;
  }

  unregisterAdminExt(group: string): void {
    this.adminExtTable.delete(group);
  }

  selectProducer(group: string): MQProducerInner | undefined {
    return this.producerTable.get(group);
  }

  selectConsumer(group: string): MQConsumerInner | undefined {
    return this.consumerTable.get(group);
  }

  /** NOTIFY_CONSUMER_IDS_CHANGED, a consumer's start: every consumer rebalances now. */
  rebalanceImmediately(): void {
    this.rebalanceService.wakeup();
  }

  /** One rebalance of every consumer (the RebalanceService's task); a failure is logged per group. */
  async doRebalance(): Promise<void> {
    for (const consumer of [...this.consumerTable.values()]) {
      try {
        await consumer.doRebalance();
      } catch (error) {
        this.logger.warn('rebalance failed', { group: consumer.groupName(), error: errorText(error) }, error);
      }
    }
  }

  /**
   * `findBrokerAddressInSubscribe`: the address of `brokerId` in `brokerName`; a wanted slave that is
   * missing falls back to the next id, and unless `onlyThisBroker` any member of the broker will do.
   */
  findBrokerAddressInSubscribe(
    brokerName: string,
    brokerId: number,
    onlyThisBroker: boolean,
  ): FindBrokerResult | undefined {
    const addrs = this.brokerAddrTable.get(brokerName);
    if (addrs === undefined || addrs.size === 0) return undefined;
    let addr = addrs.get(brokerId);
    let slave = brokerId !== MASTER_ID;
    if (addr === undefined && slave) addr = addrs.get(brokerId + 1);
    if (addr === undefined && !onlyThisBroker) {
      const id = Math.min(...addrs.keys());
      addr = addrs.get(id) as string;
      slave = id !== MASTER_ID;
    }
    if (addr === undefined) return undefined;
    return {
      brokerAddr: addr,
      slave,
      brokerVersion: this.brokerVersionTable.get(brokerName)?.get(addr) ?? 0,
    };
  }

  /** `findBrokerAddrByTopic`: a master (else a slave) of a random broker of the topic's route. */
  findBrokerAddrByTopic(topic: string): string | undefined {
    const brokers = this.topicRouteTable.get(topic)?.brokerDatas ?? [];
    if (brokers.length === 0) return undefined;
    const bd = brokers[Math.floor(Math.random() * brokers.length)] as (typeof brokers)[number];
    const master = bd.brokerAddrs.get(MASTER_ID);
    if (master !== undefined) return master;
    const slaves = [...bd.brokerAddrs.values()];
    return slaves[Math.floor(Math.random() * slaves.length)];
  }

  /** `findConsumerIdList`: the group's members as a broker of the topic knows them; undefined on failure. */
  async findConsumerIdList(topic: string, group: string): Promise<string[] | undefined> {
    let addr = this.findBrokerAddrByTopic(topic);
    if (addr === undefined) {
      await this.updateTopicRouteInfoFromNameServer(topic);
      addr = this.findBrokerAddrByTopic(topic);
    }
    if (addr === undefined) return undefined;
    try {
      const response = await this.api.invoke(
        addr,
        buildGetConsumerListByGroupRequest(group),
        this.apiCallOptions(),
      );
      return parseGetConsumerListByGroupResponse(response, addr, group);
    } catch (error) {
      if (
        error instanceof MQBrokerError &&
        error.responseCode === ResponseCode.SYSTEM_ERROR &&
        error.remark?.startsWith('no consumer for this group') === true
      ) {
        // A broker the group has not sent a heartbeat to yet (its topic just got a route there, as
        // a topic created on first send does): heartbeat now, and the next rebalance finds the group.
        this.logger.info('getConsumerIdListByGroup: the broker does not know the group yet; heartbeat now', {
          brokerAddr: addr,
          group,
          topic,
        });
        void this.sendHeartbeatToAllBrokerWithLock().then(
          () => this.rebalanceImmediately(),
          () => {},
        );
        return undefined;
      }
      this.logger.warn(
        'getConsumerIdListByGroup failed',
        {
          brokerAddr: addr,
          group,
          topic,
          error: errorText(error),
        },
        error,
      );
      return undefined;
    }
  }

  /**
   * `checkClientInBroker`: every non-TAG subscription of `consumer` is checked on a broker of its
   * topic (CHECK_CLIENT_CONFIG), so a SQL92 expression the broker cannot run fails the start.
   */
  async checkClientInBroker(consumer: MQConsumerInner): Promise<void> {
    for (const sub of consumer.subscriptions()) {
      if (sub.expressionType === 'TAG' || sub.expressionType === '') continue;
      const addr = this.findBrokerAddrByTopic(sub.topic);
      if (addr === undefined) continue;
      const response = await this.api.invoke(
        addr,
        buildCheckClientConfigRequest(this.clientId, consumer.groupName(), sub),
        this.apiCallOptions(),
      );
      parseCheckClientConfigResponse(response, addr, consumer.groupName(), sub.topic);
    }
  }

  /** The instance's own producer, made once by `create` (upstream's CLIENT_INNER_PRODUCER). */
  async getOrCreateInnerProducer(create: () => Promise<InnerProducer>): Promise<InnerProducer> {
    if (this.innerProducer === undefined) this.innerProducer = await create();
    return this.innerProducer;
  }

  /** The master's address of `brokerName`, as routes gave it. */
  findBrokerAddressInPublish(brokerName: string): string | undefined {
    return this.brokerAddrTable.get(brokerName)?.get(MASTER_ID);
  }

  /** The error of the last failed route request of `topic`, if the last one failed. */
  lastRouteError(topic: string): unknown {
    return this.routeErrors.get(topic);
  }

  /** Options of the client's own calls: mqClientApiTimeout. */
  apiCallOptions(signal?: AbortSignal): CallOptions {
    return { timeoutMs: this.config.mqClientApiTimeout, signal };
  }

  /**
   * Reads the route of `topic` (or, with `template`, of the auto-create topic, queue counts cut to
   * `defaultTopicQueueNums`) and, when it differs from the cached one or a producer or consumer still
   * lacks it, hands it to every producer and consumer. Returns whether anything was updated. Concurrent
   * calls for one topic share one request. A name server failure is logged and leaves the cache as it was.
   */
  updateTopicRouteInfoFromNameServer(topic: string, template?: DefaultRouteSource): Promise<boolean> {
    const key = template === undefined ? topic : `\u0000${topic}`;
    const running = this.routeUpdates.get(key);
    if (running !== undefined) return running;
    const update = this.updateRoute(topic, template).finally(() => this.routeUpdates.delete(key));
    this.routeUpdates.set(key, update);
    return update;
  }

  /** Routes of every topic a producer or consumer uses. */
  async updateAllTopicRoutes(): Promise<void> {
    const topics = new Set<string>();
    for (const consumer of this.consumerTable.values())
      for (const s of consumer.subscriptions()) topics.add(s.topic);
    for (const producer of this.producerTable.values())
      for (const t of producer.getPublishTopicList()) topics.add(t);
    await Promise.all([...topics].map((t) => this.updateTopicRouteInfoFromNameServer(t)));
  }

  /**
   * One heartbeat to every broker at a time; a call while one runs makes one more run after it, so a
   * group added meanwhile reaches every broker.
   */
  sendHeartbeatToAllBrokerWithLock(): Promise<void> {
    if (this.heartbeat !== undefined) {
      this.heartbeatAgain = true;
      return this.heartbeat;
    }
    const run = async (): Promise<void> => {
      do {
        this.heartbeatAgain = false;
        await this.sendHeartbeatToAllBroker();
      } while (this.heartbeatAgain && this.state === 'RUNNING');
    };
    this.heartbeat = run().finally(() => {
      this.heartbeat = undefined;
    });
    return this.heartbeat;
  }

  /**
   * A connection to a broker opened (again): a restarted broker knows no client until its next
   * heartbeat, up to heartbeatBrokerInterval away, and answers the consumers' pulls with
   * SUBSCRIPTION_NOT_EXIST meanwhile. So one full heartbeat goes to it now, written before whatever
   * request opened the connection, and the consumers rebalance once it is answered.
   */
  private onBrokerConnected(address: string): void {
    if (this.state !== 'RUNNING') return;
    for (const [brokerName, addrs] of this.brokerAddrTable) {
      const id = [...addrs].find(([, addr]) => addr === address)?.[0];
      if (id === undefined) continue;
      const reconnect = this.brokersConnected.has(address);
      this.brokersConnected.add(address);
      if (!reconnect || this.heartbeatsInFlight.has(address)) return;
      if (this.consumerTable.size === 0 && (this.producerTable.size === 0 || id !== MASTER_ID)) return;
      this.heartbeatFingerprints.delete(address);
      const data = this.prepareHeartbeatData();
      const fingerprint = this.config.useHeartbeatV2 ? heartbeatFingerprint(data) : 0;
      void this.heartbeatTo(brokerName, address, data, fingerprint).then(() => {
        if (this.consumerTable.size > 0) this.rebalanceImmediately();
      });
      return;
    }
  }

  /**
   * Shuts down once no producer, consumer or admin is registered (upstream: the last one's shutdown), then
   * stops every timer and closes every connection.
   */
  shutdown(): Promise<void> {
    const ownProducer = this.innerProducer === undefined ? 0 : 1;
    if (this.consumerTable.size > 0 || this.adminExtTable.size > 0 || this.producerTable.size > ownProducer)
      return Promise.resolve();
    this.shuttingDown ??= this.doShutdown();
    return this.shuttingDown;
  }

  private async doShutdown(): Promise<void> {
    const wasRunning = this.state === 'RUNNING';
    this.state = 'SHUTDOWN_ALREADY';
    this.onShutdown(this);
    await this.innerProducer?.shutdownInner();
    await Promise.all([...this.tasks.map((t) => t.stop()), this.rebalanceService.stop()]);
    await this.heartbeat;
    await Promise.allSettled([...this.routeUpdates.values()]);
    await this.remoting.close();
    if (wasRunning) this.logger.info('client instance shut down', { clientId: this.clientId });
  }

  private async updateRoute(topic: string, template: DefaultRouteSource | undefined): Promise<boolean> {
    let route: TopicRouteData | undefined;
    const asked = template?.createTopicKey ?? topic;
    try {
      route = await this.api.getTopicRouteInfoFromNameServer(asked, this.apiCallOptions());
    } catch (error) {
      // One warn per run of failures: the route poll asks again every pollNameServerInterval, and a
      // name server that stays away must not fill the log with the same line forever.
      const repeated = this.routeErrors.has(topic);
      this.routeErrors.set(topic, error);
      const quiet =
        repeated ||
        topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) ||
        topic === TopicName.AUTO_CREATE_TOPIC_KEY_TOPIC;
      const fields = { clientId: this.clientId, topic: asked, error: errorText(error) };
      if (quiet) this.logger.debug('route update failed', fields, error);
      else this.logger.warn('route update failed', fields, error);
      return false;
    }
    this.routeErrors.delete(topic);
    if (this.state === 'SHUTDOWN_ALREADY') return false;
    // TOPIC_NOT_EXIST leaves the cache as it is, as upstream's client has it: a restarted name server
    // knows no topic until the brokers register again (registerNameServerPeriod), and the clients'
    // sends and pulls must go on meanwhile with the routes they hold.
    if (route === undefined) {
      // A topic a broker created on first send is unknown to the name servers until the broker's
      // next registration: expected, so not a warn.
      const fields = { clientId: this.clientId, topic };
      const text = 'route update: the name servers do not know the topic; the cached route stays';
      if (this.templateRoutes.has(topic)) this.logger.debug(text, fields);
      else if (this.topicRouteTable.has(topic)) this.logger.warn(text, fields);
      return false;
    }
    if (template !== undefined) {
      for (const qd of route.queueDatas) {
        const nums = Math.min(template.defaultTopicQueueNums, qd.readQueueNums);
        qd.readQueueNums = nums;
        qd.writeQueueNums = nums;
      }
    }
    const old = this.topicRouteTable.get(topic);
    const changed = topicRouteDataIsChange(old, route);
    if (!changed && !this.isNeedUpdateTopicRouteInfo(topic)) return false;
    for (const bd of route.brokerDatas) this.brokerAddrTable.set(bd.brokerName, new Map(bd.brokerAddrs));
    if (this.producerTable.size > 0) {
      const info = topicRouteData2TopicPublishInfo(topic, route);
      info.haveTopicRouterInfo = true;
      for (const producer of this.producerTable.values()) producer.updateTopicPublishInfo(topic, info);
    }
    if (this.consumerTable.size > 0) {
      const queues = topicRouteData2TopicSubscribeInfo(topic, route);
      for (const consumer of this.consumerTable.values()) consumer.updateTopicSubscribeInfo(topic, queues);
    }
    const cached = cloneTopicRouteData(route);
    this.topicRouteTable.set(topic, cached);
    if (template !== undefined) this.templateRoutes.add(topic);
    else this.templateRoutes.delete(topic);
    if (changed) {
      this.logger.info('topic route changed', { clientId: this.clientId, topic });
      if (routeChangeChannel.hasSubscribers) {
        routeChangeChannel.publish({ clientId: this.clientId, topic, route: cloneTopicRouteData(cached) });
      }
    }
    return true;
  }

  private isNeedUpdateTopicRouteInfo(topic: string): boolean {
    for (const producer of this.producerTable.values())
      if (producer.isPublishTopicNeedUpdate(topic)) return true;
    for (const consumer of this.consumerTable.values())
      if (consumer.isSubscribeTopicNeedUpdate(topic)) return true;
    return false;
  }

  /** Drops broker addresses no cached route mentions any more. */
  private cleanOfflineBroker(): void {
    const live = new Set<string>();
    for (const route of this.topicRouteTable.values()) {
      for (const bd of route.brokerDatas) for (const addr of bd.brokerAddrs.values()) live.add(addr);
    }
    for (const [brokerName, addrs] of this.brokerAddrTable) {
      for (const [id, addr] of addrs) {
        if (live.has(addr)) continue;
        addrs.delete(id);
        this.heartbeatFingerprints.delete(addr);
        this.brokersConnected.delete(addr);
        this.logger.info('broker address offline, removed', { brokerName, brokerAddr: addr });
      }
      if (addrs.size === 0) {
        this.brokerAddrTable.delete(brokerName);
        this.brokerSupportV2.delete(brokerName);
      }
    }
  }

  private async persistAllConsumerOffset(): Promise<void> {
    await Promise.all([...this.consumerTable.values()].map((c) => c.persistConsumerOffset()));
  }

  /** upstream `prepareHeartbeatData`; the instance's inner producer group is always listed, as upstream. */
  private prepareHeartbeatData(): HeartbeatData {
    const groups = new Set([...this.producerTable.keys(), MixAll.CLIENT_INNER_PRODUCER_GROUP]);
    return {
      clientID: this.clientId,
      producerDataSet: [...groups].map((groupName) => ({ groupName })),
      consumerDataSet: [...this.consumerTable.values()].map((c) => ({
        groupName: c.groupName(),
        consumeType: c.consumeType(),
        messageModel: c.messageModel(),
        consumeFromWhere: c.consumeFromWhere(),
        subscriptionDataSet: [...c.subscriptions()],
        unitMode: c.isUnitMode(),
      })),
    };
  }

  private async sendHeartbeatToAllBroker(): Promise<void> {
    if (this.producerTable.size === 0 && this.consumerTable.size === 0) return;
    const data = this.prepareHeartbeatData();
    const fingerprint = this.config.useHeartbeatV2 ? heartbeatFingerprint(data) : 0;
    const consumerEmpty = data.consumerDataSet.length === 0;
    const sends: Promise<void>[] = [];
    for (const [brokerName, addrs] of this.brokerAddrTable) {
      for (const [id, addr] of addrs) {
        // Producers only talk to masters; consumers may pull from slaves.
        if (consumerEmpty && id !== MASTER_ID) continue;
        sends.push(this.heartbeatTo(brokerName, addr, data, fingerprint));
      }
    }
    await Promise.all(sends);
  }

  private async heartbeatTo(
    brokerName: string,
    addr: string,
    data: HeartbeatData,
    fingerprint: number,
  ): Promise<void> {
    const options = this.apiCallOptions();
    this.heartbeatsInFlight.add(addr);
    try {
      let answer: Awaited<ReturnType<MQClientAPI['sendHeartbeat']>>;
      const withoutSub =
        fingerprint !== 0 &&
        this.brokerSupportV2.get(brokerName) === true &&
        this.heartbeatFingerprints.get(addr) === fingerprint;
      if (withoutSub) {
        answer = await this.api.sendHeartbeat(addr, withoutSubscriptions(data, fingerprint), options);
        if (answer.subChange) {
          answer = await this.api.sendHeartbeat(
            addr,
            { ...data, heartbeatFingerprint: fingerprint },
            options,
          );
        }
      } else {
        const full: HeartbeatData = fingerprint === 0 ? data : { ...data, heartbeatFingerprint: fingerprint };
        answer = await this.api.sendHeartbeat(addr, full, options);
      }
      if (fingerprint !== 0) {
        this.brokerSupportV2.set(brokerName, answer.supportV2);
        this.heartbeatFingerprints.set(addr, fingerprint);
      }
      let versions = this.brokerVersionTable.get(brokerName);
      if (versions === undefined) {
        versions = new Map();
        this.brokerVersionTable.set(brokerName, versions);
      }
      versions.set(addr, answer.version);
    } catch (error) {
      this.heartbeatFingerprints.delete(addr);
      this.logger.info(
        'heartbeat to broker failed',
        {
          brokerName,
          brokerAddr: addr,
          error: errorText(error),
        },
        error,
      );
      if (heartbeatFailureChannel.hasSubscribers) {
        heartbeatFailureChannel.publish({ clientId: this.clientId, brokerName, brokerAddr: addr, error });
      }
    } finally {
      this.heartbeatsInFlight.delete(addr);
    }
  }

  private async unregisterClient(
    producerGroup: string | undefined,
    consumerGroup: string | undefined,
  ): Promise<void> {
    const calls: Promise<void>[] = [];
    for (const [brokerName, addrs] of this.brokerAddrTable) {
      for (const addr of addrs.values()) {
        calls.push(
          this.api
            .unregisterClient(addr, this.clientId, producerGroup, consumerGroup, this.apiCallOptions())
            .then(
              () =>
                this.logger.info('unregistered from broker', {
                  brokerName,
                  brokerAddr: addr,
                  producerGroup,
                  consumerGroup,
                }),
              (error: unknown) =>
                this.logger.warn(
                  'unregister from broker failed',
                  {
                    brokerName,
                    brokerAddr: addr,
                    producerGroup,
                    consumerGroup,
                    error: errorText(error),
                  },
                  error,
                ),
            ),
        );
      }
    }
    await Promise.all(calls);
  }
}

/**
 * A heartbeat's identity without what changes on every heartbeat (client id, subscription versions),
 * as 5.x's computeHeartbeatFingerprint; never 0, which means "no fingerprint" on the wire.
 */
export function heartbeatFingerprint(data: HeartbeatData): number {
  const stable: HeartbeatData = {
    clientID: '',
    producerDataSet: data.producerDataSet,
    consumerDataSet: data.consumerDataSet.map((c) => ({
      ...c,
      subscriptionDataSet: c.subscriptionDataSet.map((s) => ({ ...s, subVersion: 0n })),
    })),
  };
  return javaStringHashCode(encodeHeartbeatData(stable).toString('utf8')) || 1;
}

function withoutSubscriptions(data: HeartbeatData, fingerprint: number): HeartbeatData {
  return {
    ...data,
    consumerDataSet: data.consumerDataSet.map((c) => ({ ...c, subscriptionDataSet: [] })),
    heartbeatFingerprint: fingerprint,
    withoutSub: true,
  };
}
