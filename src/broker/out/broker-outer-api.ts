/**
 * BrokerOuterAPI (`broker/.../out/BrokerOuterAPI.java`): the broker's requests to name servers.
 * REGISTER_BROKER goes to every name server in parallel with an uncompressed RegisterBrokerBody
 * (unless compressedRegister) and its CRC32; UNREGISTER_BROKER to each in turn; QUERY_DATA_VERSION
 * when forceRegister is off.
 */

import { RocketMQError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { messageBodyCrc } from '../../common/message/crc32.js';
import {
  type DataVersion,
  dataVersionEquals,
  decodeDataVersion,
  encodeDataVersion,
} from '../../common/protocol/data-version.js';
import { decodeKVTable } from '../../common/protocol/kv-table.js';
import {
  encodeRegisterBrokerBody,
  type TopicConfigSerializeWrapper,
} from '../../common/protocol/register-broker-body.js';
import { decodeTopicRouteData, type TopicRouteData } from '../../common/protocol/route.js';
import { createRequest } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  GetRouteInfoRequestHeader,
  QueryDataVersionRequestHeader,
  QueryDataVersionResponseHeader,
  RegisterBrokerRequestHeader,
  RegisterBrokerResponseHeader,
  UnRegisterBrokerRequestHeader,
} from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { RemotingClient } from '../../remoting/transport/index.js';
import { namesrvAddressList } from '../broker-config.js';

/** What a name server answered a registration with (RegisterBrokerResult). */
export interface RegisterBrokerResult {
  /** The name server it came from. */
  namesrvAddr: string;
  /** The master's HA address, for a slave whose master is registered. */
  haServerAddr: string | undefined;
  masterAddr: string | undefined;
  /** The ORDER_TOPIC_CONFIG namespace of the name server's KV config, when it has one. */
  kvTable: Map<string, string> | undefined;
}

export interface BrokerIdentity {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
}

export interface RegisterBrokerAllParams extends BrokerIdentity {
  haServerAddr: string;
  topicConfigWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
  oneway: boolean;
  timeoutMills: number;
  compressed: boolean;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class BrokerOuterAPI {
  private addresses: string[] = [];

  constructor(
    private readonly remotingClient: RemotingClient,
    private readonly logger: Logger,
  ) {}

  /** `;`-separated addresses (BrokerConfig.namesrvAddr). */
  updateNameServerAddressList(addrs: string | undefined): void {
    this.addresses = namesrvAddressList(addrs);
  }

  get nameServerAddressList(): readonly string[] {
    return this.addresses;
  }

  /**
   * Registers with every name server at once and resolves with the answers that came back within
   * the timeout (none when oneway). A failure with one name server is logged, not thrown.
   */
  async registerBrokerAll(params: RegisterBrokerAllParams): Promise<RegisterBrokerResult[]> {
    if (this.addresses.length === 0) return [];
    const body = encodeRegisterBrokerBody(
      { topicConfigSerializeWrapper: params.topicConfigWrapper, filterServerList: params.filterServerList },
      params.compressed,
    );
    const extFields = encodeHeader(RegisterBrokerRequestHeader, {
      brokerName: params.brokerName,
      brokerAddr: params.brokerAddr,
      clusterName: params.clusterName,
      haServerAddr: params.haServerAddr,
      brokerId: BigInt(params.brokerId),
      compressed: params.compressed,
      bodyCrc32: messageBodyCrc(body),
    });
    const attempts = this.addresses.map(async (namesrvAddr) => {
      const request = createRequest(RequestCode.REGISTER_BROKER, { extFields: { ...extFields }, body });
      try {
        const result = await this.registerBroker(namesrvAddr, request, params.oneway, params.timeoutMills);
        this.logger.info('register broker to name server OK', { namesrvAddr, brokerId: params.brokerId });
        return result;
      } catch (error) {
        this.logger.warn('registerBroker Exception', { namesrvAddr, error: describe(error) });
        return undefined;
      }
    });
    const results = await Promise.all(attempts);
    return results.filter((r): r is RegisterBrokerResult => r !== undefined);
  }

  private async registerBroker(
    namesrvAddr: string,
    request: ReturnType<typeof createRequest>,
    oneway: boolean,
    timeoutMs: number,
  ): Promise<RegisterBrokerResult | undefined> {
    if (oneway) {
      await this.remotingClient.invokeOneway(namesrvAddr, request, { timeoutMs });
      return undefined;
    }
    const response = await this.remotingClient.invoke(namesrvAddr, request, { timeoutMs });
    if (response.code !== ResponseCode.SUCCESS) {
      throw new RocketMQError(
        `CODE: ${response.code} DESC: ${response.remark ?? ''} BROKER: ${namesrvAddr}`,
        response.code,
      );
    }
    const header = decodeHeader(RegisterBrokerResponseHeader, response.extFields);
    return {
      namesrvAddr,
      haServerAddr: header.haServerAddr,
      masterAddr: header.masterAddr,
      kvTable: response.body === undefined ? undefined : decodeKVTable(response.body),
    };
  }

  /** UNREGISTER_BROKER to each name server in turn; failures are logged. */
  async unregisterBrokerAll(identity: BrokerIdentity, timeoutMs: number): Promise<void> {
    for (const namesrvAddr of this.addresses) {
      try {
        await this.unregisterBroker(namesrvAddr, identity, timeoutMs);
        this.logger.info('unregisterBroker OK', { namesrvAddr });
      } catch (error) {
        this.logger.warn('unregisterBroker Exception', { namesrvAddr, error: describe(error) });
      }
    }
  }

  async unregisterBroker(namesrvAddr: string, identity: BrokerIdentity, timeoutMs: number): Promise<void> {
    const request = createRequest(RequestCode.UNREGISTER_BROKER, {
      extFields: encodeHeader(UnRegisterBrokerRequestHeader, {
        brokerName: identity.brokerName,
        brokerAddr: identity.brokerAddr,
        clusterName: identity.clusterName,
        brokerId: BigInt(identity.brokerId),
      }),
    });
    const response = await this.remotingClient.invoke(namesrvAddr, request, { timeoutMs });
    if (response.code !== ResponseCode.SUCCESS) {
      throw new RocketMQError(`CODE: ${response.code} DESC: ${response.remark ?? ''}`, response.code);
    }
  }

  /**
   * GET_ROUTEINFO_BY_TOPIC, asking the name servers in turn until one answers: the route, or
   * undefined when the topic is unknown (TOPIC_NOT_EXIST). Rejects when none could answer.
   */
  async getTopicRouteInfoFromNameServer(
    topic: string,
    timeoutMs: number,
  ): Promise<TopicRouteData | undefined> {
    let last: unknown = new RocketMQError('no name server address', ResponseCode.SYSTEM_ERROR);
    for (const namesrvAddr of this.addresses) {
      try {
        const request = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
          extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
        });
        const response = await this.remotingClient.invoke(namesrvAddr, request, { timeoutMs });
        if (response.code === ResponseCode.TOPIC_NOT_EXIST) return undefined;
        if (response.code !== ResponseCode.SUCCESS) {
          throw new RocketMQError(`CODE: ${response.code} DESC: ${response.remark ?? ''}`, response.code);
        }
        return decodeTopicRouteData(response.body);
      } catch (error) {
        last = error;
      }
    }
    throw last;
  }

  /**
   * QUERY_DATA_VERSION to every name server: true for each one whose copy of our topic configs is
   * stale (or that could not be asked). Registration is needed when any is.
   */
  async needRegister(
    identity: BrokerIdentity,
    dataVersion: DataVersion,
    timeoutMs: number,
  ): Promise<boolean[]> {
    const asks = this.addresses.map(async (namesrvAddr) => {
      try {
        const request = createRequest(RequestCode.QUERY_DATA_VERSION, {
          extFields: encodeHeader(QueryDataVersionRequestHeader, {
            brokerName: identity.brokerName,
            brokerAddr: identity.brokerAddr,
            clusterName: identity.clusterName,
            brokerId: BigInt(identity.brokerId),
          }),
          body: encodeDataVersion(dataVersion),
        });
        const response = await this.remotingClient.invoke(namesrvAddr, request, { timeoutMs });
        if (response.code !== ResponseCode.SUCCESS) return false;
        let changed = decodeHeader(QueryDataVersionResponseHeader, response.extFields).changed;
        if (response.body !== undefined) {
          const theirs = decodeDataVersion(response.body, { timestamp: 0n });
          if (!dataVersionEquals(theirs, dataVersion)) changed = true;
        }
        return changed;
      } catch (error) {
        this.logger.error('Query data version from name server Exception', {
          namesrvAddr,
          error: describe(error),
        });
        return true;
      }
    });
    return Promise.all(asks);
  }
}
