/**
 * What every admin operation shares: the running client instance, the admin's options, and the ways
 * to reach peers (a broker, exactly one address, the name servers) under one call's deadline, with
 * the answer read by a request module into its result type or a typed error.
 */

import type { ClientConfig } from '../client/client-config.js';
import { type ErrorSubject, MQClientError } from '../client/errors.js';
import type { CallOptions } from '../client/instance/mq-client-api.js';
import type { MQClientInstance } from '../client/instance/mq-client-instance.js';
import {
  buildGetRouteInfoRequest,
  parseGetRouteInfoResponse,
} from '../client/instance/requests/get-route-info.js';
import type { NamespacedAdmin } from '../client/mq-admin.js';
import { MixAll } from '../common/constants.js';
import { ValidationError } from '../common/errors.js';
import type { ClusterInfo, TopicRouteData } from '../common/protocol/route.js';
import type { RemotingCommand } from '../remoting/protocol/command.js';
import { ResponseCode } from '../remoting/protocol/response-code.js';
import type { ResolvedAdminOptions } from './admin-options.js';
import { withinDeadline } from './deadline.js';
import type { PropertiesInput } from './mq-admin-ext.js';
import {
  buildGetBrokerClusterInfoRequest,
  parseGetBrokerClusterInfoResponse,
} from './requests/get-broker-cluster-info.js';
import type { Peer } from './requests/support.js';

/** Calls upstream gives three times the admin's timeout (consume stats, running info, offset cloning). */
export const SLOW_CALL_FACTOR = 3;
export const MASTER_ID = 0;

export type Parse<T> = (response: RemotingCommand, peer: Peer) => T;

/** `BrokerData.selectBrokerAddr`: the master, else any slave. */
export function selectBrokerAddr(brokerAddrs: ReadonlyMap<number, string>): string | undefined {
  const master = brokerAddrs.get(MASTER_ID);
  if (master !== undefined) return master;
  const slaves = [...brokerAddrs.values()];
  return slaves[Math.floor(Math.random() * slaves.length)];
}

export function nonEmpty(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new ValidationError(`${name} must be a non-empty string`, -1);
  return value;
}

/** Properties as entries; a line break would split a key or value in the properties text. */
export function propertiesEntries(properties: PropertiesInput): Array<[string, string]> {
  const entries =
    properties instanceof Map
      ? [...properties.entries()]
      : Object.entries(properties as Record<string, string>);
  for (const [k, v] of entries) {
    if (typeof k !== 'string' || k.length === 0 || typeof v !== 'string')
      throw new ValidationError(`properties must map non-empty keys to strings (key ${String(k)})`, -1);
    if (/[\r\n]/.test(k) || /[\r\n]/.test(v))
      throw new ValidationError(`property ${k} must not hold a line break`, -1);
  }
  return entries;
}

export class AdminContext {
  readonly config: ClientConfig;
  readonly options: ResolvedAdminOptions;
  /** The MQAdmin lookups (offsets, messages by id and key) over the instance's MQAdminImpl. */
  readonly queries: NamespacedAdmin;
  private readonly runningInstance: () => MQClientInstance;

  /** `running` gives the client instance while the admin runs and throws ClientStateError otherwise. */
  constructor(
    config: ClientConfig,
    options: ResolvedAdminOptions,
    queries: NamespacedAdmin,
    running: () => MQClientInstance,
  ) {
    this.config = config;
    this.options = options;
    this.queries = queries;
    this.runningInstance = running;
  }

  get running(): MQClientInstance {
    return this.runningInstance();
  }

  now(): bigint {
    return BigInt(this.config.clock.now());
  }

  namesrvAddrs(): string[] {
    return [...this.running.api.namesrv.addresses];
  }

  /** A request to a broker (its VIP channel when vipChannelEnabled, as upstream). */
  onBroker<T>(
    addr: string,
    request: RemotingCommand,
    parse: Parse<T>,
    call: CallOptions,
    subject: ErrorSubject = {},
  ): Promise<T> {
    nonEmpty('brokerAddr', addr);
    return this.onPeer(
      MixAll.brokerVIPChannel(this.config.vipChannelEnabled, addr),
      request,
      parse,
      call,
      subject,
    );
  }

  /** A request to exactly this address (a broker or a name server). */
  async onPeer<T>(
    addr: string,
    request: RemotingCommand,
    parse: Parse<T>,
    call: CallOptions,
    subject: ErrorSubject = {},
  ): Promise<T> {
    nonEmpty('address', addr);
    const remoting = this.running.remoting;
    const response = await withinDeadline(addr, call, (c) => remoting.invoke(addr, request, c));
    return parse(response, { ...subject, brokerAddr: addr });
  }

  /** A request to the name servers, failing over from one that cannot be reached to the next. */
  invokeNamesrv(
    request: RemotingCommand,
    call: CallOptions,
  ): Promise<{ response: RemotingCommand; address: string }> {
    const api = this.running.api;
    return withinDeadline(`name server ${api.namesrv.addresses.join(';')}`, call, (c) =>
      api.invokeNamesrv(request, c),
    );
  }

  async onNamesrv<T>(request: RemotingCommand, parse: Parse<T>, call: CallOptions): Promise<T> {
    const { response, address } = await this.invokeNamesrv(request, call);
    return parse(response, { brokerAddr: address });
  }

  /** The same request to every name server (upstream's KV config writes); the first failure rejects. */
  async onEveryNamesrv(request: RemotingCommand, parse: Parse<void>, call: CallOptions): Promise<void> {
    const addrs = this.namesrvAddrs();
    if (addrs.length === 0) throw new MQClientError('No name server address, please set it', -1);
    await Promise.all(addrs.map((addr) => this.onPeer(addr, request, parse, call)));
  }

  /** The topic's route; MQClientError TOPIC_NOT_EXIST when no name server knows it. */
  async routeOf(topic: string, call: CallOptions): Promise<TopicRouteData> {
    nonEmpty('topic', topic);
    const { response, address } = await this.invokeNamesrv(buildGetRouteInfoRequest(topic), call);
    const route = parseGetRouteInfoResponse(response, address, topic);
    if (route === undefined) {
      throw new MQClientError(
        `No topic route info in name server for the topic: ${topic}`,
        ResponseCode.TOPIC_NOT_EXIST,
        {
          topic,
          brokerAddr: address,
          // A topic being created is routed once its broker registers it.
          retriable: true,
        },
      );
    }
    return route;
  }

  /** One address per broker of the route (the master, else a slave). */
  routeBrokerAddrs(route: TopicRouteData): string[] {
    return route.brokerDatas
      .map((bd) => selectBrokerAddr(bd.brokerAddrs))
      .filter((a): a is string => a !== undefined);
  }

  clusterInfo(call: CallOptions): Promise<ClusterInfo> {
    return this.onNamesrv(buildGetBrokerClusterInfoRequest(), parseGetBrokerClusterInfoResponse, call);
  }

  /** upstream CommandUtil.fetchMasterAddrByClusterName. */
  async masterAddrs(clusterName: string, call: CallOptions): Promise<string[]> {
    const info = await this.clusterInfo(call);
    const out: string[] = [];
    for (const name of info.clusterAddrTable.get(clusterName) ?? []) {
      const master = info.brokerAddrTable.get(name)?.brokerAddrs.get(MASTER_ID);
      if (master !== undefined) out.push(master);
    }
    return out;
  }

  /** Every address of every broker of the cluster (of every cluster when none is named), in turn. */
  async onClusterBrokers(
    clusterName: string | undefined,
    call: CallOptions,
    each: (addr: string) => Promise<boolean>,
  ): Promise<boolean> {
    const info = await this.clusterInfo(call);
    const clusters =
      clusterName === undefined || clusterName === '' ? [...info.clusterAddrTable.keys()] : [clusterName];
    let result = false;
    for (const cluster of clusters) {
      for (const name of info.clusterAddrTable.get(cluster) ?? []) {
        for (const addr of info.brokerAddrTable.get(name)?.brokerAddrs.values() ?? [])
          result = await each(addr);
      }
    }
    return result;
  }
}
