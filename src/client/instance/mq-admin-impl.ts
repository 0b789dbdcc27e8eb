/**
 * MQAdminImpl: the lookups every client offers (upstream MQAdmin): offsets of a queue by time, its
 * min and max offsets and earliest store time, a message by its offset id, and messages by key or
 * UNIQ_KEY through the brokers' index. Queues and topics here are the ones on the wire (with the
 * namespace); the caller translates.
 */

import type { Logger } from '../../common/logger.js';
import { hostToString } from '../../common/message/host.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { decodeOffsetMsgId } from '../../common/message/message-id.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import { uniqKeyTimestamp } from '../../common/message/uniq-key.js';
import type { BrokerData, TopicRouteData } from '../../common/protocol/route.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { ClientErrorCode, errorText, MQClientError } from '../errors.js';
import type { CallOptions, MQClientAPI } from './mq-client-api.js';
import { buildQueryMessageRequest, parseQueryMessageResponse } from './requests/query-message.js';
import {
  buildGetEarliestMsgStoretimeRequest,
  buildGetMaxOffsetRequest,
  buildGetMinOffsetRequest,
  buildSearchOffsetRequest,
  parseGetEarliestMsgStoretimeResponse,
  parseGetMaxOffsetResponse,
  parseGetMinOffsetResponse,
  parseSearchOffsetResponse,
} from './requests/queue-offsets.js';
import { buildViewMessageRequest, parseViewMessageResponse } from './requests/view-message.js';

/** Upstream MQAdminImpl.timeoutMillis: the default timeout of these lookups, ms. */
export const DEFAULT_ADMIN_TIMEOUT_MS = 6000;
/** Upstream's maxNum of queryMessageByUniqKey. */
const UNIQ_KEY_QUERY_MAX_NUM = 32;
const LONG_MAX = 2n ** 63n - 1n;

export interface QueryResult {
  /** The newest index update time among the brokers that answered (ms). */
  readonly indexLastUpdateTimestamp: bigint;
  readonly messageList: MessageExt[];
}

/** `BrokerData.selectBrokerAddr`: the master, else any slave. */
function selectBrokerAddr(bd: BrokerData): string | undefined {
  const master = bd.brokerAddrs.get(0);
  if (master !== undefined) return master;
  const slaves = [...bd.brokerAddrs.values()];
  return slaves[Math.floor(Math.random() * slaves.length)];
}

/** What the lookups need of the client instance. */
export interface AdminHost {
  readonly api: MQClientAPI;
  readonly logger: Logger;
  readonly topicRouteTable: ReadonlyMap<string, TopicRouteData>;
  findBrokerAddressInPublish(brokerName: string): string | undefined;
  updateTopicRouteInfoFromNameServer(topic: string): Promise<boolean>;
}

export class MQAdminImpl {
  private readonly instance: AdminHost;

  constructor(instance: AdminHost) {
    this.instance = instance;
  }

  searchOffset(mq: MessageQueue, timestamp: bigint, options: CallOptions): Promise<bigint> {
    return this.onQueueBroker(
      mq,
      options,
      buildSearchOffsetRequest(mq, timestamp),
      parseSearchOffsetResponse,
    );
  }

  maxOffset(mq: MessageQueue, options: CallOptions): Promise<bigint> {
    return this.onQueueBroker(mq, options, buildGetMaxOffsetRequest(mq), parseGetMaxOffsetResponse);
  }

  minOffset(mq: MessageQueue, options: CallOptions): Promise<bigint> {
    return this.onQueueBroker(mq, options, buildGetMinOffsetRequest(mq), parseGetMinOffsetResponse);
  }

  earliestMsgStoreTime(mq: MessageQueue, options: CallOptions): Promise<bigint> {
    return this.onQueueBroker(
      mq,
      options,
      buildGetEarliestMsgStoretimeRequest(mq),
      parseGetEarliestMsgStoretimeResponse,
    );
  }

  /** The message an offsetMsgId names, from the broker the id names. */
  async viewMessage(offsetMsgId: string, options: CallOptions): Promise<MessageExt> {
    let id: ReturnType<typeof decodeOffsetMsgId>;
    try {
      id = decodeOffsetMsgId(offsetMsgId);
    } catch (error) {
      throw new MQClientError(
        `query message by id finished, but no message: ${errorText(error)}`,
        ResponseCode.NO_MESSAGE,
        {
          cause: error,
        },
      );
    }
    const addr = hostToString(id.address);
    const response = await this.instance.api.invoke(addr, buildViewMessageRequest(id.offset), options);
    return parseViewMessageResponse(response, addr);
  }

  /** Messages of `topic` whose KEYS hold `key`, stored between `begin` and `end` (ms). */
  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: bigint,
    end: bigint,
    options: CallOptions,
  ): Promise<QueryResult> {
    return this.query(topic, key, maxNum, begin, end, false, options);
  }

  /**
   * The message with this UNIQ_KEY, or undefined: asked from a second before the time the id carries
   * (upstream's getNearlyTimeFromID) and, of several copies, the first stored.
   */
  async queryMessageByUniqKey(
    topic: string,
    uniqKey: string,
    options: CallOptions,
  ): Promise<MessageExt | undefined> {
    let begin: bigint;
    try {
      begin = BigInt(
        uniqKeyTimestamp(uniqKey, Date.now(), (t) => -new Date(t).getTimezoneOffset() * 60_000) - 1000,
      );
    } catch (error) {
      throw new MQClientError(
        `"${uniqKey}" is not a message id: ${errorText(error)}`,
        ResponseCode.NO_MESSAGE,
        {
          topic,
          cause: error,
        },
      );
    }
    try {
      const result = await this.query(topic, uniqKey, UNIQ_KEY_QUERY_MAX_NUM, begin, LONG_MAX, true, options);
      return result.messageList[0];
    } catch (error) {
      if (error instanceof MQClientError && error.responseCode === ResponseCode.NO_MESSAGE) return undefined;
      throw error;
    }
  }

  private async onQueueBroker(
    mq: MessageQueue,
    options: CallOptions,
    request: RemotingCommand,
    parse: (response: RemotingCommand, brokerAddr: string, topic: string) => bigint,
  ): Promise<bigint> {
    let addr = this.instance.findBrokerAddressInPublish(mq.brokerName);
    if (addr === undefined) {
      await this.instance.updateTopicRouteInfoFromNameServer(mq.topic);
      addr = this.instance.findBrokerAddressInPublish(mq.brokerName);
    }
    if (addr === undefined) {
      throw new MQClientError(
        `The broker[${mq.brokerName}] not exist`,
        ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION,
        {
          topic: mq.topic,
          retriable: true,
        },
      );
    }
    const response = await this.instance.api.invoke(addr, request, options);
    return parse(response, addr, mq.topic);
  }

  private async query(
    topic: string,
    key: string,
    maxNum: number,
    begin: bigint,
    end: bigint,
    isUniqKey: boolean,
    options: CallOptions,
  ): Promise<QueryResult> {
    let route = this.instance.topicRouteTable.get(topic);
    if (route === undefined) {
      await this.instance.updateTopicRouteInfoFromNameServer(topic);
      route = this.instance.topicRouteTable.get(topic);
    }
    const addrs = (route?.brokerDatas ?? [])
      .map(selectBrokerAddr)
      .filter((a): a is string => a !== undefined);
    if (addrs.length === 0) {
      throw new MQClientError(`The topic[${topic}] not matched route info`, ResponseCode.TOPIC_NOT_EXIST, {
        topic,
      });
    }
    const args = { topic, key, maxNum, beginTimestamp: begin, endTimestamp: end, isUniqKey };
    const answers = await Promise.all(
      addrs.map(async (addr) => {
        try {
          const response = await this.instance.api.invoke(addr, buildQueryMessageRequest(args), options);
          if (response.code === ResponseCode.QUERY_NOT_FOUND) return undefined;
          return parseQueryMessageResponse(response, addr, topic);
        } catch (error) {
          this.instance.logger.warn(
            'query message failed on a broker',
            {
              brokerAddr: addr,
              topic,
              error: errorText(error),
            },
            error,
          );
          return undefined;
        }
      }),
    );
    let indexLastUpdateTimestamp = 0n;
    let messageList: MessageExt[] = [];
    for (const answer of answers) {
      if (answer === undefined) continue;
      if (answer.indexLastUpdateTimestamp > indexLastUpdateTimestamp)
        indexLastUpdateTimestamp = answer.indexLastUpdateTimestamp;
      for (const msg of answer.messages) {
        if (isUniqKey) {
          if (msg.msgId !== key) continue;
          const first = messageList[0];
          if (first === undefined) messageList = [msg];
          else if (first.storeTimestamp > msg.storeTimestamp) messageList = [msg];
        } else if (
          msg.topic === topic &&
          (msg.keys?.split(MessageConst.KEY_SEPARATOR).includes(key) ?? false)
        ) {
          messageList.push(msg);
        }
      }
    }
    if (messageList.length === 0) {
      throw new MQClientError('query message by key finished, but no message.', ResponseCode.NO_MESSAGE, {
        topic,
      });
    }
    return { indexLastUpdateTimestamp, messageList };
  }
}
