/**
 * What bench-consumer and bench-compare ask of a broker outside the clients they measure, over a
 * RemotingClient of their own, the way mqadmin asks it: create a topic with a given number of queues
 * (and wait until the name server routes them), count a topic's stored messages, and read a
 * consumer's GET_CONSUMER_RUNNING_INFO (which the broker forwards to the member, ours or Java) for
 * the messages its process queues cache.
 */
import {
  buildGetRouteInfoRequest,
  parseGetRouteInfoResponse,
} from '../src/client/instance/requests/get-route-info.js';
import {
  buildGetMaxOffsetRequest,
  parseGetMaxOffsetResponse,
} from '../src/client/instance/requests/queue-offsets.js';
import { requestWithHeader } from '../src/client/instance/requests/support.js';
import { createLogger } from '../src/common/logger.js';
import { MessageQueue } from '../src/common/message/message-queue.js';
import { decodeConsumerRunningInfo } from '../src/common/protocol/consumer-running-info.js';
import {
  CreateTopicRequestHeader,
  GetConsumerRunningInfoRequestHeader,
} from '../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../src/remoting/transport/index.js';

const CALL_TIMEOUT_MS = 5000;
/** PermName.PERM_READ | PERM_WRITE */
const PERM_READ_WRITE = 6;
/** How long a new topic may take to show up in the name server's route (a broker registers every 30 s at worst). */
const ROUTE_WAIT_MS = 45_000;

/** What a member's process queues hold, summed over the queues of one topic. */
export interface CacheFigures {
  queues: number;
  cachedMsgCount: number;
  maxQueueMsgCount: number;
}

export class BrokerAdmin {
  private readonly client = new RemotingClient(
    {},
    { logger: createLogger('bench-admin', { level: 'error' }) },
  );

  constructor(
    private readonly namesrvAddr: string,
    private readonly brokerAddr: string,
  ) {}

  private async routedQueues(topic: string): Promise<number> {
    const response = await this.client.invoke(this.namesrvAddr, buildGetRouteInfoRequest(topic), {
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const route = parseGetRouteInfoResponse(response, this.namesrvAddr, topic);
    return route?.queueDatas.reduce((n, q) => n + q.readQueueNums, 0) ?? 0;
  }

  /** Creates `topic` with `queues` read and write queues; resolves once the name server routes them. */
  async createTopic(topic: string, queues: number): Promise<void> {
    const request = requestWithHeader(RequestCode.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader, {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: queues,
      writeQueueNums: queues,
      perm: PERM_READ_WRITE,
      topicFilterType: 'SINGLE_TAG',
    });
    const response = await this.client.invoke(this.brokerAddr, request, { timeoutMs: CALL_TIMEOUT_MS });
    if (response.code !== ResponseCode.SUCCESS)
      throw new Error(`UPDATE_AND_CREATE_TOPIC ${topic}: ${response.code} ${String(response.remark)}`);
    const deadline = Date.now() + ROUTE_WAIT_MS;
    while ((await this.routedQueues(topic)) !== queues) {
      if (Date.now() > deadline) throw new Error(`the name server routes no ${queues} queues of ${topic}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Messages stored in `topic` on this broker: the sum of its queues' max offsets (GET_MAX_OFFSET). */
  async storedMessages(topic: string): Promise<number> {
    const response = await this.client.invoke(this.namesrvAddr, buildGetRouteInfoRequest(topic), {
      timeoutMs: CALL_TIMEOUT_MS,
    });
    let total = 0n;
    for (const q of parseGetRouteInfoResponse(response, this.namesrvAddr, topic)?.queueDatas ?? []) {
      for (let id = 0; id < q.readQueueNums; id++) {
        const request = buildGetMaxOffsetRequest(new MessageQueue(topic, q.brokerName, id));
        const answer = await this.client.invoke(this.brokerAddr, request, { timeoutMs: CALL_TIMEOUT_MS });
        total += parseGetMaxOffsetResponse(answer, this.brokerAddr, topic);
      }
    }
    return Number(total);
  }

  /** The member's cached messages of `topic`, from its GET_CONSUMER_RUNNING_INFO answer. */
  async cache(group: string, clientId: string, topic: string): Promise<CacheFigures> {
    const request = requestWithHeader(
      RequestCode.GET_CONSUMER_RUNNING_INFO,
      GetConsumerRunningInfoRequestHeader,
      {
        consumerGroup: group,
        clientId,
        jstackEnable: false,
      },
    );
    const response = await this.client.invoke(this.brokerAddr, request, { timeoutMs: CALL_TIMEOUT_MS });
    if (response.code !== ResponseCode.SUCCESS)
      throw new Error(
        `GET_CONSUMER_RUNNING_INFO ${group} ${clientId}: ${response.code} ${String(response.remark)}`,
      );
    const info = decodeConsumerRunningInfo(response.body);
    const figures: CacheFigures = {
      queues: 0,
      cachedMsgCount: 0,
      maxQueueMsgCount: 0,
    };
    for (const [mq, pq] of info.mqTable) {
      if (mq.topic !== topic) continue;
      figures.queues++;
      figures.cachedMsgCount += pq.cachedMsgCount;
      figures.maxQueueMsgCount = Math.max(figures.maxQueueMsgCount, pq.cachedMsgCount);
    }
    return figures;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
