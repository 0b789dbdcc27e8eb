/**
 * The load balancing of upstream's QueryAssignmentProcessor (doLoadBalance, allocate4Pop): which
 * queues of a topic a member of a group reads, computed by the broker for consumers that do not
 * rebalance themselves (`clientRebalance=false`). The arithmetic is the client's (common/rebalance).
 */
import type { Logger } from '../../common/logger.js';
import { javaStringCompare } from '../../common/message/java-lang.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { MessageModel } from '../../common/protocol/heartbeat-data.js';
import { MessageRequestMode } from '../../common/protocol/message-request-mode.js';
import type { SetMessageRequestModeRequestBody } from '../../common/protocol/set-message-request-mode-body.js';
import {
  allocateAveragely,
  allocateAveragelyByCircle,
  checkAllocateInput,
} from '../../common/rebalance/allocate-queues.js';

/** An allocation strategy as the broker runs it: checked inputs, a member missing from cidAll gets nothing. */
export type AllocateStrategy = (
  consumerGroup: string,
  currentCID: string,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
) => MessageQueue[];

function checked(
  allocate: (cid: string, mqAll: readonly MessageQueue[], cidAll: readonly string[]) => MessageQueue[],
  logger: Logger,
): AllocateStrategy {
  return (consumerGroup, currentCID, mqAll, cidAll) => {
    if (!checkAllocateInput(currentCID, mqAll, cidAll)) {
      logger.info('[BUG] consumer id not in cidAll', { consumerGroup, consumerId: currentCID });
      return [];
    }
    return allocate(currentCID, mqAll, cidAll);
  };
}

/** The strategies upstream's broker registers (name2LoadStrategy): AVG and AVG_BY_CIRCLE only. */
export function brokerAllocateStrategies(logger: Logger): ReadonlyMap<string, AllocateStrategy> {
  return new Map([
    ['AVG', checked(allocateAveragely, logger)],
    ['AVG_BY_CIRCLE', checked(allocateAveragelyByCircle, logger)],
  ]);
}

/**
 * allocate4Pop: with popShareQueueNum <= 0 or >= members - 1, every member pops every queue (queue
 * id -1: all of the broker's queues); else, with no more members than queues, a member takes its
 * own share plus those of the popShareQueueNum members after it (in sorted id order); with more
 * members than queues, member i takes queue i mod queues, so each member has one.
 */
export function allocate4Pop(
  strategy: AllocateStrategy,
  consumerGroup: string,
  clientId: string,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
  popShareQueueNum: number,
): MessageQueue[] {
  if (popShareQueueNum <= 0 || popShareQueueNum >= cidAll.length - 1) {
    return mqAll.map((mq) => new MessageQueue(mq.topic, mq.brokerName, -1));
  }
  if (cidAll.length <= mqAll.length) {
    const result = strategy(consumerGroup, clientId, mqAll, cidAll);
    let index = cidAll.indexOf(clientId);
    if (index >= 0) {
      for (let i = 1; i <= popShareQueueNum; i++) {
        index = (index + 1) % cidAll.length;
        result.push(...strategy(consumerGroup, cidAll[index] as string, mqAll, cidAll));
      }
    }
    return result;
  }
  // Upstream's private allocate(): the same checks as a strategy's, then one queue per member.
  if (!checkAllocateInput(clientId, mqAll, cidAll)) return [];
  return [mqAll[cidAll.indexOf(clientId) % mqAll.length] as MessageQueue];
}

export interface LoadBalanceInput {
  topic: string;
  consumerGroup: string;
  clientId: string;
  messageModel: MessageModel | undefined;
  strategyName: string;
  /** The topic's readable queues (upstream: the topic's subscribe info); undefined when the topic does not exist. */
  mqSet: readonly MessageQueue[] | undefined;
  /** The group's member ids; undefined when the broker knows no member of the group. */
  cidAll: readonly string[] | undefined;
  mode: Readonly<SetMessageRequestModeRequestBody>;
  serverLoadBalancerEnable: boolean;
  strategies: ReadonlyMap<string, AllocateStrategy>;
  logger: Logger;
}

/**
 * doLoadBalance: the queues assigned to the member, without duplicates; undefined = no valid result
 * (unknown topic, group without members, unknown strategy): the client keeps its current queues.
 * Broadcasting members get every queue.
 */
export function doLoadBalance(input: LoadBalanceInput): MessageQueue[] | undefined {
  const { topic, consumerGroup, clientId, logger } = input;
  if (input.messageModel === MessageModel.BROADCASTING) {
    if (input.mqSet === undefined)
      logger.warn('QueryLoad: no assignment, the topic does not exist', { consumerGroup, topic });
    return input.mqSet === undefined ? undefined : [...input.mqSet];
  }
  if (input.messageModel !== MessageModel.CLUSTERING) return [];
  if (input.mqSet === undefined) {
    if (!topic.startsWith('%RETRY%'))
      logger.warn('QueryLoad: no assignment, the topic does not exist', { consumerGroup, topic });
    return undefined;
  }
  if (!input.serverLoadBalancerEnable) return [...input.mqSet];
  if (input.cidAll === undefined) {
    logger.warn('QueryLoad: no assignment, get consumer id list failed', { consumerGroup, topic });
    return undefined;
  }
  const mqAll = [...input.mqSet].sort(MessageQueue.compare);
  const cidAll = [...input.cidAll].sort(javaStringCompare);
  const strategy = input.strategies.get(input.strategyName);
  if (strategy === undefined) {
    logger.warn('QueryLoad: unsupported strategy', {
      consumerGroup,
      topic,
      strategyName: input.strategyName,
    });
    return undefined;
  }
  let result: MessageQueue[];
  try {
    result =
      input.mode.mode === MessageRequestMode.POP
        ? allocate4Pop(strategy, consumerGroup, clientId, mqAll, cidAll, input.mode.popShareQueueNum)
        : strategy(consumerGroup, clientId, mqAll, cidAll);
  } catch (error) {
    logger.error('QueryLoad: allocate message queue failed', {
      consumerGroup,
      topic,
      strategyName: input.strategyName,
      error: (error as Error).message,
    });
    return undefined;
  }
  const seen = new Set<string>();
  return result.filter((mq) => !seen.has(mq.key) && seen.add(mq.key) !== undefined);
}
