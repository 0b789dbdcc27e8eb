/**
 * MQClientAPI (upstream MQClientAPIImpl): the client's calls to name servers and brokers over one
 * RemotingClient. Each call is built and read by its module under `requests/`; this class only
 * chooses the peer, applies the timeout and signal, and runs the call.
 */
import type { HeartbeatData } from '../../common/protocol/heartbeat-data.js';
import type { TopicRouteData } from '../../common/protocol/route.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { InvokeOptions } from '../../remoting/transport/connection.js';
import { RemotingTimeoutError } from '../../remoting/transport/errors.js';
import type { RemotingClient } from '../../remoting/transport/remoting-client.js';
import { NamesrvAddressList } from './namesrv-address-list.js';
import { buildEndTransactionRequest, type EndTransactionHeader } from './requests/end-transaction.js';
import { buildGetRouteInfoRequest, parseGetRouteInfoResponse } from './requests/get-route-info.js';
import {
  buildHeartbeatRequest,
  type HeartbeatAnswer,
  parseHeartbeatResponse,
} from './requests/heart-beat.js';
import { buildUnregisterClientRequest, parseUnregisterClientResponse } from './requests/unregister-client.js';

/** `{ timeoutMs, signal }` of a call that waits. */
export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export class MQClientAPI {
  readonly remoting: RemotingClient;
  readonly namesrv: NamesrvAddressList;

  constructor(remoting: RemotingClient, namesrvAddrList: readonly string[]) {
    this.remoting = remoting;
    this.namesrv = new NamesrvAddressList(namesrvAddrList);
  }

  /** A request to a broker. */
  invoke(addr: string, request: RemotingCommand, options: CallOptions): Promise<RemotingCommand> {
    return this.remoting.invoke(addr, request, options);
  }

  /** A request to a name server, failing over to the next one that can be reached. */
  async invokeNamesrv(
    request: RemotingCommand,
    options: CallOptions,
  ): Promise<{ response: RemotingCommand; address: string }> {
    const deadline = Date.now() + options.timeoutMs;
    return this.namesrv.invoke(async (address) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new RemotingTimeoutError(address, options.timeoutMs);
      const invokeOptions: InvokeOptions = { timeoutMs: remaining, signal: options.signal };
      const response = await this.remoting.invoke(address, request, invokeOptions);
      return { response, address };
    }, deadline);
  }

  /** The topic's route, or undefined when no name server knows the topic. */
  async getTopicRouteInfoFromNameServer(
    topic: string,
    options: CallOptions,
  ): Promise<TopicRouteData | undefined> {
    const { response, address } = await this.invokeNamesrv(buildGetRouteInfoRequest(topic), options);
    return parseGetRouteInfoResponse(response, address, topic);
  }

  async sendHeartbeat(addr: string, data: HeartbeatData, options: CallOptions): Promise<HeartbeatAnswer> {
    const response = await this.invoke(addr, buildHeartbeatRequest(data), options);
    return parseHeartbeatResponse(response, addr);
  }

  async unregisterClient(
    addr: string,
    clientId: string,
    producerGroup: string | undefined,
    consumerGroup: string | undefined,
    options: CallOptions,
  ): Promise<void> {
    const response = await this.invoke(
      addr,
      buildUnregisterClientRequest(clientId, producerGroup, consumerGroup),
      options,
    );
    parseUnregisterClientResponse(response, addr, producerGroup ?? consumerGroup ?? '');
  }

  /** Oneway, as upstream: the broker answers nothing and the local transaction is already decided. */
  endTransactionOneway(
    addr: string,
    header: EndTransactionHeader,
    remark: string | undefined,
  ): Promise<void> {
    return this.remoting.invokeOneway(addr, buildEndTransactionRequest(header, remark));
  }
}
