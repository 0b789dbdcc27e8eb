/**
 * RouteInfoManager (`namesrv/.../routeinfo/RouteInfoManager.java`, 4.9.8): which brokers are alive, which
 * cluster and broker name each belongs to, and which topics each master serves. Everything the name
 * server answers is read from these five tables; brokers fill them by registering every 30 s, and leave
 * by unregistering, by closing their connection, or by going silent for brokerChannelExpiredTime.
 *
 * Behaviour kept from upstream, including its quirks:
 * - only a master (brokerId 0) updates topic queue data, and only when its DataVersion differs from the
 *   one recorded at its previous registration or when it registers for the first time; topics a
 *   broker no longer reports stay until DELETE_TOPIC_IN_NAMESRV or until the broker name goes away;
 * - an address registered under another id of the same broker name is dropped first (slave -> master);
 * - a slave's registration answers with the master's address and HA address when the master is alive;
 * - a broker name disappears (with its topic queues) only when its last address goes.
 * Single-threaded JS needs none of upstream's read-write lock.
 *
 * Where we differ (issue 26; upstream trusts whoever registers):
 * - a registration that would move a live broker's slot (its name and id) to another address, or
 *   give a live address another id, from a connection that broker did not register on, is refused
 *   (BrokerTakeoverError) while rejectLiveBrokerTakeover is on; off, it is taken and logged;
 * - a closing connection removes only the addresses registered on it and held by no other open
 *   connection, and an address that displaced a still-live one hands the slot back to it.
 */
import { EventEmitter } from 'node:events';
import type { Clock } from '../../common/clock.js';
import { PermName, TopicSysFlag } from '../../common/constants.js';
import { RocketMQError, ValidationError } from '../../common/errors.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import { type DataVersion, dataVersionEquals } from '../../common/protocol/data-version.js';
import type { TopicConfigSerializeWrapper } from '../../common/protocol/register-broker-body.js';
import type { BrokerData, ClusterInfo, QueueData, TopicRouteData } from '../../common/protocol/route.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import type { TopicList } from '../../common/protocol/topic-list.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { javaLongOrder, javaOrderedEntries, javaStringOrder, TableCapacity } from './java-order.js';

/** The connection a broker registered on; closed when the broker expires. */
export interface BrokerChannel {
  close(reason?: string): void;
}

export interface BrokerLiveInfo {
  lastUpdateTimestamp: number;
  dataVersion: DataVersion;
  /** The connection of the latest registration (the one expiry closes). */
  channel: BrokerChannel | undefined;
  haServerAddr: string;
}

/** What the live table keeps per address besides what upstream keeps. */
interface LiveEntry extends BrokerLiveInfo {
  /** Every open connection this address registered on: it stays while one of them does. */
  readonly channels: Set<BrokerChannel>;
  /** The live address this one displaced in its slot (rejectLiveBrokerTakeover off). */
  displaced?: { brokerName: string; brokerId: bigint; brokerAddr: string };
}

/** A DataVersion no broker sends: the next registration of the address re-applies its topics. */
const UNKNOWN_VERSION: DataVersion = Object.freeze({ timestamp: -1n, counter: -1n });

/**
 * A registration that would take a live broker's slot or address from another connection
 * (NO_PERMISSION; the broker retries at its next registration period).
 */
export class BrokerTakeoverError extends RocketMQError {
  constructor(message: string) {
    super(message, ResponseCode.NO_PERMISSION);
  }
}

interface BrokerAddrs {
  cluster: string;
  brokerName: string;
  /** brokerId -> address; ids are safe integers (checked at registration). */
  brokerAddrs: Map<bigint, string>;
}

export interface RegisterBrokerParams {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: bigint;
  haServerAddr: string;
  topicConfigWrapper: TopicConfigSerializeWrapper;
  /** undefined leaves the broker's filter servers as they are (the pre-3.0.11 register path). */
  filterServerList: string[] | undefined;
  channel: BrokerChannel | undefined;
}

/** RegisterBrokerResult: set for a slave whose master is alive. */
export interface RegisterBrokerResult {
  haServerAddr?: string;
  masterAddr?: string;
}

export type BrokerRemovedReason = 'unregistered' | 'channelDestroyed' | 'expired';

export interface RouteInfoManagerEvents {
  /** A broker address entered the live table. */
  brokerRegistered: [brokerAddr: string, brokerName: string];
  /** A broker address left the live table. */
  brokerRemoved: [brokerAddr: string, reason: BrokerRemovedReason];
}

export interface RouteInfoManagerOptions {
  clock: Clock;
  logger: Logger;
  /** ms without registration before scanNotActiveBroker drops a broker. */
  brokerChannelExpiredTime: number;
  /** Refuse (true) or take and log (false) a registration taking a live broker's slot [true]. */
  rejectLiveBrokerTakeover?: boolean;
}

const MASTER_ID = 0n;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class RouteInfoManager extends EventEmitter<RouteInfoManagerEvents> {
  private readonly topicQueueTable = new Map<string, Map<string, QueueData>>();
  private readonly brokerAddrTable = new Map<string, BrokerAddrs>();
  private readonly clusterAddrTable = new Map<string, Set<string>>();
  private readonly brokerLiveTable = new Map<string, LiveEntry>();
  private readonly filterServerTable = new Map<string, string[]>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly brokerChannelExpiredTime: number;
  private readonly rejectLiveBrokerTakeover: boolean;
  /** A peer can send takeovers at will: one log line per kind and minute. */
  private readonly takeoverLog: LogRateLimiter;

  constructor(options: RouteInfoManagerOptions) {
    super();
    this.clock = options.clock;
    this.logger = options.logger;
    this.brokerChannelExpiredTime = options.brokerChannelExpiredTime;
    this.rejectLiveBrokerTakeover = options.rejectLiveBrokerTakeover ?? true;
    this.takeoverLog = new LogRateLimiter(60_000, () => this.clock.now());
  }

  /** Live: registered within brokerChannelExpiredTime and still held by an open connection. */
  private heldElsewhere(brokerAddr: string, channel: BrokerChannel | undefined): LiveEntry | undefined {
    const live = this.brokerLiveTable.get(brokerAddr);
    if (live === undefined || live.channels.size === 0) return undefined;
    if (channel === undefined || live.channels.has(channel)) return undefined;
    if (live.lastUpdateTimestamp + this.brokerChannelExpiredTime < this.clock.now()) return undefined;
    return live;
  }

  /**
   * The slot (name, id) of a live broker at another address, or a live address under another id,
   * claimed from a connection that address never registered on: what a broker never does (a restart
   * or a move comes after its old connection closed), and what an unsigned peer can do to point a
   * route at itself. Undefined when the registration takes nothing from anyone.
   */
  private takeoverOf(p: RegisterBrokerParams): { what: string; displaced?: string } | undefined {
    const brokerData = this.brokerAddrTable.get(p.brokerName);
    if (brokerData === undefined) return undefined;
    const current = brokerData.brokerAddrs.get(p.brokerId);
    if (current !== undefined && current !== p.brokerAddr && this.heldElsewhere(current, p.channel)) {
      return { what: `the live broker ${p.brokerName}[${p.brokerId}] at ${current}`, displaced: current };
    }
    for (const [id, addr] of brokerData.brokerAddrs) {
      if (addr === p.brokerAddr && id !== p.brokerId && this.heldElsewhere(addr, p.channel)) {
        return { what: `the live address ${addr} of ${p.brokerName}[${id}]` };
      }
    }
    return undefined;
  }

  private checkTakeover(p: RegisterBrokerParams): string | undefined {
    const takeover = this.takeoverOf(p);
    if (takeover === undefined) return undefined;
    const refused = this.rejectLiveBrokerTakeover;
    const dropped = this.takeoverLog.take(refused ? 'refused' : 'taken');
    if (dropped !== undefined) {
      this.logger.warn(
        refused
          ? 'registration refused: it would take a live broker from another connection'
          : 'registration took a live broker from another connection (rejectLiveBrokerTakeover=false)',
        { target: takeover.what, brokerAddr: p.brokerAddr, dropped },
      );
    }
    if (refused) {
      throw new BrokerTakeoverError(
        `register broker refused: ${p.brokerAddr} would replace ${takeover.what}, registered from another ` +
          'connection that is still open (rejectLiveBrokerTakeover; enable the name server ACL to trust registrations)',
      );
    }
    return takeover.displaced;
  }

  registerBroker(p: RegisterBrokerParams): RegisterBrokerResult {
    if (p.brokerId < MIN_SAFE || p.brokerId > MAX_SAFE) {
      throw new ValidationError(`brokerId ${p.brokerId} is out of range`);
    }
    const displaced = this.checkTakeover(p);
    const result: RegisterBrokerResult = {};
    let brokerNames = this.clusterAddrTable.get(p.clusterName);
    if (brokerNames === undefined) {
      brokerNames = new Set();
      this.clusterAddrTable.set(p.clusterName, brokerNames);
    }
    brokerNames.add(p.brokerName);

    let registerFirst = false;
    let brokerData = this.brokerAddrTable.get(p.brokerName);
    if (brokerData === undefined) {
      registerFirst = true;
      brokerData = { cluster: p.clusterName, brokerName: p.brokerName, brokerAddrs: new Map() };
      this.brokerAddrTable.set(p.brokerName, brokerData);
    }
    // One address has one id: a slave promoted to master first loses its old entry.
    for (const [id, addr] of brokerData.brokerAddrs) {
      if (addr === p.brokerAddr && id !== p.brokerId) brokerData.brokerAddrs.delete(id);
    }
    const oldAddr = brokerData.brokerAddrs.get(p.brokerId);
    brokerData.brokerAddrs.set(p.brokerId, p.brokerAddr);
    if (p.brokerId === MASTER_ID && oldAddr !== p.brokerAddr) {
      this.logger.info('master address changed', {
        cluster: brokerData.cluster,
        brokerName: p.brokerName,
        from: oldAddr,
        to: p.brokerAddr,
      });
    }
    registerFirst ||= oldAddr === undefined;

    const dataVersion = { ...p.topicConfigWrapper.dataVersion };
    if (p.brokerId === MASTER_ID) {
      if (this.isBrokerTopicConfigChanged(p.brokerAddr, dataVersion) || registerFirst) {
        for (const config of p.topicConfigWrapper.topicConfigTable.values()) {
          this.createAndUpdateQueueData(p.brokerName, config);
        }
      }
    }

    const previous = this.brokerLiveTable.get(p.brokerAddr);
    const channels = previous?.channels ?? new Set<BrokerChannel>();
    if (p.channel !== undefined && !channels.has(p.channel)) {
      if (channels.size > 0 && this.takeoverLog.take('shared') !== undefined) {
        this.logger.warn('a broker address registered from a second open connection', {
          brokerAddr: p.brokerAddr,
          connections: channels.size + 1,
        });
      }
      channels.add(p.channel);
    }
    const entry: LiveEntry = {
      lastUpdateTimestamp: this.clock.now(),
      dataVersion,
      channel: p.channel,
      haServerAddr: p.haServerAddr,
      channels,
    };
    const slotOf = displaced ?? previous?.displaced?.brokerAddr;
    if (slotOf !== undefined)
      entry.displaced = { brokerName: p.brokerName, brokerId: p.brokerId, brokerAddr: slotOf };
    this.brokerLiveTable.set(p.brokerAddr, entry);
    if (previous === undefined) {
      this.logger.info('new broker registered', { brokerAddr: p.brokerAddr, haServerAddr: p.haServerAddr });
      this.emit('brokerRegistered', p.brokerAddr, p.brokerName);
    }

    if (p.filterServerList !== undefined) {
      if (p.filterServerList.length === 0) this.filterServerTable.delete(p.brokerAddr);
      else this.filterServerTable.set(p.brokerAddr, [...p.filterServerList]);
    }

    if (p.brokerId !== MASTER_ID) {
      const masterAddr = brokerData.brokerAddrs.get(MASTER_ID);
      const master = masterAddr === undefined ? undefined : this.brokerLiveTable.get(masterAddr);
      if (masterAddr !== undefined && master !== undefined) {
        result.haServerAddr = master.haServerAddr;
        result.masterAddr = masterAddr;
      }
    }
    return result;
  }

  isBrokerTopicConfigChanged(brokerAddr: string, dataVersion: DataVersion): boolean {
    const prev = this.queryBrokerTopicConfig(brokerAddr);
    return prev === undefined || !dataVersionEquals(prev, dataVersion);
  }

  /** The DataVersion of the broker's last registration. */
  queryBrokerTopicConfig(brokerAddr: string): DataVersion | undefined {
    return this.brokerLiveTable.get(brokerAddr)?.dataVersion;
  }

  updateBrokerInfoUpdateTimestamp(brokerAddr: string, timestamp: number): void {
    const live = this.brokerLiveTable.get(brokerAddr);
    if (live !== undefined) live.lastUpdateTimestamp = timestamp;
  }

  getBrokerLiveInfo(brokerAddr: string): Readonly<BrokerLiveInfo> | undefined {
    return this.brokerLiveTable.get(brokerAddr);
  }

  private createAndUpdateQueueData(brokerName: string, config: TopicConfig): void {
    const queueData: QueueData = {
      brokerName,
      readQueueNums: config.readQueueNums,
      writeQueueNums: config.writeQueueNums,
      perm: config.perm,
      topicSysFlag: config.topicSysFlag,
    };
    const queueDataMap = this.topicQueueTable.get(config.topicName);
    if (queueDataMap === undefined) {
      this.topicQueueTable.set(config.topicName, new Map([[brokerName, queueData]]));
      this.logger.info('new topic registered', { topic: config.topicName, brokerName });
    } else {
      queueDataMap.set(brokerName, queueData);
    }
  }

  /** Upstream's wipeWritePermOfBrokerByLock: clears the write bit of every topic on the broker. */
  wipeWritePermOfBroker(brokerName: string): number {
    return this.operateWritePermOfBroker(brokerName, (perm) => perm & ~PermName.PERM_WRITE);
  }

  /** Upstream's addWritePermOfBrokerByLock: sets every topic on the broker to read + write. */
  addWritePermOfBroker(brokerName: string): number {
    return this.operateWritePermOfBroker(brokerName, () => PermName.PERM_READ | PermName.PERM_WRITE);
  }

  private operateWritePermOfBroker(brokerName: string, change: (perm: number) => number): number {
    let topicCount = 0;
    for (const queueDataMap of this.topicQueueTable.values()) {
      const queueData = queueDataMap.get(brokerName);
      if (queueData !== undefined) {
        queueData.perm = change(queueData.perm);
        topicCount++;
      }
    }
    return topicCount;
  }

  unregisterBroker(clusterName: string, brokerAddr: string, brokerName: string, brokerId: bigint): void {
    const wasLive = this.brokerLiveTable.delete(brokerAddr);
    this.logger.info('unregisterBroker', { brokerAddr, wasLive });
    this.filterServerTable.delete(brokerAddr);
    let removeBrokerName = false;
    const brokerData = this.brokerAddrTable.get(brokerName);
    if (brokerData !== undefined) {
      brokerData.brokerAddrs.delete(brokerId);
      if (brokerData.brokerAddrs.size === 0) {
        this.brokerAddrTable.delete(brokerName);
        removeBrokerName = true;
      }
    }
    if (removeBrokerName) {
      const names = this.clusterAddrTable.get(clusterName);
      if (names !== undefined) {
        names.delete(brokerName);
        if (names.size === 0) this.clusterAddrTable.delete(clusterName);
      }
      this.removeTopicByBrokerName(brokerName);
    }
    if (wasLive) this.emit('brokerRemoved', brokerAddr, 'unregistered');
  }

  private removeTopicByBrokerName(brokerName: string): void {
    for (const [topic, queueDataMap] of [...this.topicQueueTable]) {
      queueDataMap.delete(brokerName);
      if (queueDataMap.size === 0) {
        this.topicQueueTable.delete(topic);
        this.logger.info('topic has no broker left', { topic });
      }
    }
  }

  /** The route of a topic, or undefined when it has no queue data or none of its brokers is known. */
  pickupTopicRouteData(topic: string): TopicRouteData | undefined {
    const queueDataMap = this.topicQueueTable.get(topic);
    if (queueDataMap === undefined) return undefined;
    const queueDatas = javaOrderedEntries(queueDataMap).map(([, q]) => ({ ...q }));
    const brokerDatas: BrokerData[] = [];
    const filterServers = new Map<string, string[]>();
    for (const brokerName of javaStringOrder(queueDataMap.keys())) {
      const brokerData = this.brokerAddrTable.get(brokerName);
      if (brokerData === undefined) continue;
      const clone = brokerDataOf(brokerData);
      brokerDatas.push(clone);
      if (this.filterServerTable.size > 0) {
        for (const addr of clone.brokerAddrs.values()) {
          const list = this.filterServerTable.get(addr);
          if (list !== undefined) filterServers.set(addr, [...list]);
        }
      }
    }
    if (brokerDatas.length === 0) return undefined;
    return { queueDatas, brokerDatas, filterServerTable: new Map(javaOrderedEntries(filterServers)) };
  }

  /**
   * Drops every broker whose last registration is older than brokerChannelExpiredTime, closing its
   * channel; returns how many went.
   */
  scanNotActiveBroker(): number {
    const now = this.clock.now();
    let removed = 0;
    for (const [brokerAddr, live] of [...this.brokerLiveTable]) {
      if (live.lastUpdateTimestamp + this.brokerChannelExpiredTime >= now) continue;
      this.logger.warn('broker channel expired', {
        brokerAddr,
        expiredTimeMs: this.brokerChannelExpiredTime,
      });
      // Removed before the channel closes, so the close callback finds nothing left to do.
      this.removeBrokerAddr(brokerAddr, 'expired');
      live.channel?.close('broker channel expired');
      removed++;
    }
    return removed;
  }

  /**
   * A connection closed (or went idle, or failed): each address registered on it that no other open
   * connection holds leaves every table at once; without a channel (or when none registered on it),
   * the broker at `remoteAddr`, unless a connection still holds that address.
   */
  onChannelDestroy(remoteAddr: string, channel: BrokerChannel | undefined): void {
    const gone: string[] = [];
    let held = false;
    if (channel !== undefined) {
      for (const [addr, live] of this.brokerLiveTable) {
        if (!live.channels.delete(channel)) continue;
        held = true;
        if (live.channels.size === 0) gone.push(addr);
        else if (live.channel === channel) live.channel = [...live.channels].at(-1);
      }
    }
    if (held) {
      for (const addr of gone) {
        this.logger.info("the broker's channel was destroyed, removing it", { brokerAddr: addr });
        this.removeBrokerAddr(addr);
      }
      return;
    }
    if (remoteAddr.length === 0 || (this.brokerLiveTable.get(remoteAddr)?.channels.size ?? 0) > 0) return;
    this.removeBrokerAddr(remoteAddr);
  }

  /** One address leaves; a slot it took from a still-live address goes back to that address. */
  private removeBrokerAddr(brokerAddrFound: string, reason: BrokerRemovedReason = 'channelDestroyed'): void {
    const live = this.brokerLiveTable.get(brokerAddrFound);
    const wasLive = this.brokerLiveTable.delete(brokerAddrFound);
    this.filterServerTable.delete(brokerAddrFound);
    const displaced = live?.displaced;
    const restored = displaced === undefined ? undefined : this.brokerLiveTable.get(displaced.brokerAddr);
    const slot = displaced === undefined ? undefined : this.brokerAddrTable.get(displaced.brokerName);
    if (
      displaced !== undefined &&
      restored !== undefined &&
      slot?.brokerAddrs.get(displaced.brokerId) === brokerAddrFound
    ) {
      slot.brokerAddrs.set(displaced.brokerId, displaced.brokerAddr);
      // Its topics were overwritten by the displacing registration: the next one re-applies them.
      restored.dataVersion = { ...UNKNOWN_VERSION };
      this.logger.warn('a displaced broker got its slot back', {
        brokerName: displaced.brokerName,
        brokerAddr: displaced.brokerAddr,
        from: brokerAddrFound,
      });
      if (wasLive) this.emit('brokerRemoved', brokerAddrFound, reason);
      return;
    }
    let brokerNameFound: string | undefined;
    let removeBrokerName = false;
    for (const [name, brokerData] of [...this.brokerAddrTable]) {
      if (brokerNameFound !== undefined) break;
      for (const [id, addr] of brokerData.brokerAddrs) {
        if (addr === brokerAddrFound) {
          brokerNameFound = brokerData.brokerName;
          brokerData.brokerAddrs.delete(id);
          break;
        }
      }
      if (brokerData.brokerAddrs.size === 0) {
        removeBrokerName = true;
        this.brokerAddrTable.delete(name);
      }
    }
    if (brokerNameFound !== undefined && removeBrokerName) {
      for (const [cluster, names] of this.clusterAddrTable) {
        if (names.delete(brokerNameFound)) {
          if (names.size === 0) this.clusterAddrTable.delete(cluster);
          break;
        }
      }
    }
    if (brokerNameFound !== undefined && removeBrokerName) this.removeTopicByBrokerName(brokerNameFound);
    if (wasLive) this.emit('brokerRemoved', brokerAddrFound, reason);
  }

  getAllClusterInfo(): ClusterInfo {
    const brokerAddrTable = new Map<string, BrokerData>();
    for (const [name, data] of javaOrderedEntries(this.brokerAddrTable, TableCapacity.brokerAddrTable)) {
      brokerAddrTable.set(name, brokerDataOf(data));
    }
    const clusterAddrTable = new Map<string, string[]>();
    for (const [cluster, names] of javaOrderedEntries(
      this.clusterAddrTable,
      TableCapacity.clusterAddrTable,
    )) {
      clusterAddrTable.set(cluster, javaStringOrder(names));
    }
    return { brokerAddrTable, clusterAddrTable };
  }

  /** Every topic; with a cluster name, only the queues of that cluster's brokers go. */
  deleteTopic(topic: string, clusterName?: string): void {
    if (clusterName === undefined) {
      this.topicQueueTable.delete(topic);
      return;
    }
    const brokerNames = this.clusterAddrTable.get(clusterName);
    const queueDataMap = this.topicQueueTable.get(topic);
    if (brokerNames === undefined || brokerNames.size === 0 || queueDataMap === undefined) return;
    for (const brokerName of brokerNames) queueDataMap.delete(brokerName);
    if (queueDataMap.size === 0) this.topicQueueTable.delete(topic);
  }

  getAllTopicList(): TopicList {
    return { topicList: javaStringOrder(this.topicsInJavaOrder()) };
  }

  /** Cluster names and broker names, plus one broker address to ask for the broker-side system topics. */
  getSystemTopicList(): TopicList {
    const names: string[] = [];
    for (const [cluster, brokerNames] of javaOrderedEntries(
      this.clusterAddrTable,
      TableCapacity.clusterAddrTable,
    )) {
      names.push(cluster, ...javaStringOrder(brokerNames));
    }
    const list: TopicList = { topicList: javaStringOrder(new Set(names)) };
    for (const [, data] of javaOrderedEntries(this.brokerAddrTable, TableCapacity.brokerAddrTable)) {
      const firstId = javaLongOrder(data.brokerAddrs.keys())[0];
      if (firstId !== undefined) {
        list.brokerAddr = data.brokerAddrs.get(firstId);
        break;
      }
    }
    return list;
  }

  /** Topics with queues on a broker of the cluster; an unknown cluster gives none (upstream logs an NPE). */
  getTopicsByCluster(cluster: string): TopicList {
    const brokerNames = this.clusterAddrTable.get(cluster);
    if (brokerNames === undefined) return { topicList: [] };
    const topics = this.topicsInJavaOrder();
    const found = new Set<string>();
    for (const brokerName of javaStringOrder(brokerNames)) {
      for (const topic of topics) {
        if (this.topicQueueTable.get(topic)?.has(brokerName)) found.add(topic);
      }
    }
    return { topicList: javaStringOrder(found) };
  }

  getUnitTopics(): TopicList {
    return this.topicsWhere((flag) => TopicSysFlag.hasUnitFlag(flag));
  }

  getHasUnitSubTopicList(): TopicList {
    return this.topicsWhere((flag) => TopicSysFlag.hasUnitSubFlag(flag));
  }

  getHasUnitSubUnUnitTopicList(): TopicList {
    return this.topicsWhere((flag) => !TopicSysFlag.hasUnitFlag(flag) && TopicSysFlag.hasUnitSubFlag(flag));
  }

  /** Judged by the first queue data of each topic, as upstream does. */
  private topicsWhere(pick: (topicSysFlag: number) => boolean): TopicList {
    const found: string[] = [];
    for (const topic of this.topicsInJavaOrder()) {
      const queueDataMap = this.topicQueueTable.get(topic);
      const first = queueDataMap === undefined ? undefined : javaStringOrder(queueDataMap.keys())[0];
      const queueData = first === undefined ? undefined : queueDataMap?.get(first);
      if (queueData !== undefined && pick(queueData.topicSysFlag)) found.push(topic);
    }
    return { topicList: javaStringOrder(found) };
  }

  private topicsInJavaOrder(): string[] {
    return javaStringOrder(this.topicQueueTable.keys(), TableCapacity.topicQueueTable);
  }
}

function brokerDataOf(data: BrokerAddrs): BrokerData {
  const brokerAddrs = new Map<number, string>();
  for (const id of javaLongOrder(data.brokerAddrs.keys())) {
    brokerAddrs.set(Number(id), data.brokerAddrs.get(id) as string);
  }
  return { cluster: data.cluster, brokerName: data.brokerName, brokerAddrs };
}
