/**
 * The four requests a slave sends its master to copy the master's metadata (upstream has them on
 * BrokerOuterAPI): GET_ALL_TOPIC_CONFIG (21), always to the master's VIP channel (listenPort - 2, as
 * upstream's `MixAll.brokerVIPChannel(true, addr)` whatever vipChannelEnabled says),
 * GET_ALL_CONSUMER_OFFSET (43), GET_ALL_DELAY_OFFSET (45) and GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201)
 * to its main port. A reply other than SUCCESS rejects with its code and remark, as upstream's
 * MQBrokerException; a body that does not decode rejects with the decoder's error.
 */
import { MixAll } from '../../common/constants.js';
import { RocketMQError } from '../../common/errors.js';
import {
  type ConsumerOffsetTable,
  decodeConsumerOffsetTable,
} from '../../common/protocol/consumer-offset-wrapper.js';
import type { DataVersionDefaults } from '../../common/protocol/data-version.js';
import {
  decodeTopicConfigSerializeWrapper,
  type TopicConfigSerializeWrapper,
} from '../../common/protocol/register-broker-body.js';
import {
  decodeSubscriptionGroupWrapper,
  type SubscriptionGroupWrapper,
} from '../../common/protocol/subscription-group-config.js';
import { createRequest, type RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { RemotingClient } from '../../remoting/transport/index.js';
import { decodeDelayOffsetTable } from '../../store/schedule/delay-offset-table.js';

/** Upstream waits this long for each of the four answers. */
export const SLAVE_SYNC_REQUEST_TIMEOUT_MILLIS = 3000;

export class MasterOuterAPI {
  constructor(
    private readonly remotingClient: RemotingClient,
    private readonly timeoutMillis: number = SLAVE_SYNC_REQUEST_TIMEOUT_MILLIS,
  ) {}

  private async call(addr: string, code: number): Promise<Buffer> {
    const response: RemotingCommand = await this.remotingClient.invoke(addr, createRequest(code), {
      timeoutMs: this.timeoutMillis,
    });
    if (response.code !== ResponseCode.SUCCESS) {
      throw new RocketMQError(
        `CODE: ${response.code} DESC: ${response.remark ?? ''} BROKER: ${addr}`,
        response.code,
      );
    }
    return response.body ?? Buffer.alloc(0);
  }

  /** The master's topics and their DataVersion (`defaults` fill a version the body lacks). */
  async getAllTopicConfig(
    masterAddr: string,
    defaults: DataVersionDefaults,
  ): Promise<TopicConfigSerializeWrapper> {
    const body = await this.call(MixAll.brokerVIPChannel(true, masterAddr), RequestCode.GET_ALL_TOPIC_CONFIG);
    return decodeTopicConfigSerializeWrapper(body, defaults);
  }

  async getAllConsumerOffset(masterAddr: string): Promise<ConsumerOffsetTable> {
    const body = await this.call(masterAddr, RequestCode.GET_ALL_CONSUMER_OFFSET);
    return decodeConsumerOffsetTable(body);
  }

  /**
   * delayOffset.json's text as the master sent it (upstream writes it to the slave's file as is).
   * Checked first: text that does not decode as a delay offset table rejects instead of reaching
   * the file, where it would stop the slave's next start.
   */
  async getAllDelayOffset(masterAddr: string): Promise<string> {
    const body = await this.call(masterAddr, RequestCode.GET_ALL_DELAY_OFFSET);
    decodeDelayOffsetTable(body, 'GET_ALL_DELAY_OFFSET body');
    return body.toString('utf8');
  }

  async getAllSubscriptionGroupConfig(
    masterAddr: string,
    defaults: DataVersionDefaults,
  ): Promise<SubscriptionGroupWrapper> {
    const body = await this.call(masterAddr, RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
    return decodeSubscriptionGroupWrapper(body, defaults);
  }
}
