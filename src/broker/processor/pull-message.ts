/**
 * PULL_MESSAGE (11), and 5.x's LITE_PULL_MESSAGE (361) alike, upstream PullMessageProcessor (4.9.8):
 * checks the broker's and the topic's read permission, the subscription group, the queue and the
 * subscription (from the request, or from the group's heartbeat), builds the message filter, reads
 * the queue and maps the store's status to SUCCESS / PULL_NOT_FOUND / PULL_RETRY_IMMEDIATELY /
 * PULL_OFFSET_MOVED. A PULL_NOT_FOUND that may be suspended is held by the PullRequestHoldService: the
 * handler's promise stays pending until a message arrives or the hold times out, and the re-run's
 * response goes back on the same connection.
 *
 * The body of a SUCCESS is the stored records as they are, concatenated.
 */
import { MixAll, PermName, PullSysFlag } from '../../common/constants.js';
import type { HostAddress } from '../../common/message/host.js';
import { StoredRecordPosition } from '../../common/message/stored-format.js';
import { bornHostLength } from '../../common/message/sysflag.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { SubscriptionGroupConfig } from '../../common/protocol/subscription-group-config.js';
import {
  buildConsumerFilterData,
  type ConsumerFilterData,
  ExpressionForRetryMessageFilter,
  ExpressionMessageFilter,
  FilterAPI,
  filterExpressionType,
  isNamedType,
  isTagType,
  NAMED_EXPRESSION_TYPE,
} from '../../filter/index.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeaderFast } from '../../remoting/protocol/header-schema.js';
import {
  PullMessageRequestHeader,
  PullMessageResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type ProcessorContext, parseAddress } from '../../remoting/transport/index.js';
import {
  type GetMessageResult,
  GetMessageStatus,
  joinRecords,
  type MessageFilter,
} from '../../store/message-store.js';
import { consumerGroupHeartbeatTable } from '../client/consumer-group-heartbeat-table.js';
import { PullRequest } from '../longpolling/pull-request.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';
import { checkConsumeGroup, isGroupRefusal } from './consume-group-check.js';
import { offsetMovedEventMessage } from './offset-moved-event.js';

/** FAQUrl.suggestTodo(...): every 4.9.8 FAQ url is the same page. */
const FAQ_TIP = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

/** The keys PullMessageResponseHeader.encode writes first in a ROCKETMQ header, in its order. */
const RESPONSE_FAST_KEYS: readonly string[] = (PullMessageResponseHeader.fastOrder ?? []).map((f) => f.key);

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function refuse(request: RemotingCommand, code: number, remark: string): RemotingCommand {
  return createResponse(request, code, { remark });
}

interface Subscription {
  subscriptionData: SubscriptionData;
  consumerFilterData: ConsumerFilterData | undefined;
}

/** The subscription the pull filters by, or the refusal. */
function findSubscription(
  broker: BrokerContext,
  request: RemotingCommand,
  h: PullMessageRequestHeader,
  group: Readonly<SubscriptionGroupConfig>,
  /** the puller's connection, for ConsumerGroupHeartbeatTable.markStale */
  connection: object,
): Subscription | RemotingCommand {
  if (PullSysFlag.hasSubscriptionFlag(h.sysFlag)) {
    // With the class-filter flag too, the subscription names a named filter (see filterExpressionType).
    const expressionType = PullSysFlag.hasClassFilterFlag(h.sysFlag)
      ? NAMED_EXPRESSION_TYPE
      : h.expressionType;
    try {
      const now = broker.clock.now();
      // Only filtered with, never written out: the tag sets need no Java order.
      const subscriptionData = FilterAPI.build(h.topic, h.subscription, expressionType, {
        subVersion: BigInt(now),
        javaOrder: false,
      });
      let consumerFilterData: ConsumerFilterData | undefined;
      if (!isTagType(subscriptionData.expressionType)) {
        consumerFilterData = buildConsumerFilterData(
          h.topic,
          h.consumerGroup,
          subscriptionData.subString,
          subscriptionData.expressionType,
          h.subVersion,
          now,
          broker.consumerFilterManager.factory,
        );
      }
      return { subscriptionData, consumerFilterData };
    } catch (error) {
      broker.logger.warn("Parse the consumer's subscription failed", {
        // The header may carry megabytes of expression; the error says where it went wrong.
        subscription: h.subscription === undefined ? undefined : h.subscription.slice(0, 200),
        group: h.consumerGroup,
        error: describe(error),
      });
      return refuse(
        request,
        ResponseCode.SUBSCRIPTION_PARSE_FAILED,
        // Upstream's remark says nothing of why; a NAMED one says which filter and what is wrong.
        isNamedType(expressionType) ? describe(error) : "parse the consumer's subscription failed",
      );
    }
  }
  const info = broker.consumerManager.getConsumerGroupInfo(h.consumerGroup);
  if (info === undefined) {
    broker.logger.warn("the consumer's group info not exist", { group: h.consumerGroup });
    return refuse(
      request,
      ResponseCode.SUBSCRIPTION_NOT_EXIST,
      `the consumer's group info not exist${FAQ_TIP}`,
    );
  }
  if (!group.consumeBroadcastEnable && info.messageModel === 'BROADCASTING') {
    return refuse(
      request,
      ResponseCode.NO_PERMISSION,
      `the consumer group[${h.consumerGroup}] can not consume by broadcast way`,
    );
  }
  const subscriptionData = info.findSubscriptionData(h.topic);
  if (subscriptionData === undefined) {
    broker.logger.warn("the consumer's subscription not exist", { group: h.consumerGroup, topic: h.topic });
    consumerGroupHeartbeatTable(broker).markStale(h.consumerGroup, connection);
    return refuse(
      request,
      ResponseCode.SUBSCRIPTION_NOT_EXIST,
      `the consumer's subscription not exist${FAQ_TIP}`,
    );
  }
  if (subscriptionData.subVersion < h.subVersion) {
    broker.logger.warn("The broker's subscription is not latest", {
      group: h.consumerGroup,
      subString: subscriptionData.subString,
    });
    consumerGroupHeartbeatTable(broker).markStale(h.consumerGroup, connection);
    return refuse(request, ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest");
  }
  let consumerFilterData: ConsumerFilterData | undefined;
  const filterType = filterExpressionType(subscriptionData);
  if (!isTagType(filterType)) {
    consumerFilterData = broker.consumerFilterManager.get(h.topic, h.consumerGroup);
    if (consumerFilterData === undefined) {
      const unusable = isNamedType(filterType) ? namedFilterProblem(broker, subscriptionData) : undefined;
      if (unusable !== undefined) return refuse(request, ResponseCode.SUBSCRIPTION_PARSE_FAILED, unusable);
      return refuse(
        request,
        ResponseCode.FILTER_DATA_NOT_EXIST,
        "The broker's consumer filter data is not exist!Your expression may be wrong!",
      );
    }
    if (consumerFilterData.clientVersion < h.subVersion) {
      broker.logger.warn("The broker's consumer filter data is not latest", {
        group: h.consumerGroup,
        topic: h.topic,
        serverVersion: String(consumerFilterData.clientVersion),
        clientVersion: String(h.subVersion),
      });
      consumerGroupHeartbeatTable(broker).markStale(h.consumerGroup, connection);
      return refuse(
        request,
        ResponseCode.FILTER_DATA_NOT_LATEST,
        "the consumer's consumer filter data not latest",
      );
    }
  }
  return { subscriptionData, consumerFilterData };
}

/**
 * Why the heartbeat's NAMED subscription left no filter data (an unknown name, no filters configured),
 * or undefined if it compiles now.
 */
function namedFilterProblem(broker: BrokerContext, subscriptionData: SubscriptionData): string | undefined {
  try {
    broker.consumerFilterManager.factory.compile(NAMED_EXPRESSION_TYPE, subscriptionData.subString);
    return undefined;
  } catch (error) {
    return describe(error);
  }
}

/** Upstream's status switch: the response code for a store status. */
function responseCodeOf(result: GetMessageResult, queueOffset: bigint): number {
  switch (result.status) {
    case GetMessageStatus.FOUND:
      return ResponseCode.SUCCESS;
    case GetMessageStatus.MESSAGE_WAS_REMOVING:
    case GetMessageStatus.NO_MATCHED_MESSAGE:
      return ResponseCode.PULL_RETRY_IMMEDIATELY;
    case GetMessageStatus.NO_MATCHED_LOGIC_QUEUE:
    case GetMessageStatus.NO_MESSAGE_IN_QUEUE:
      // An empty queue is only news to a consumer that thought it had messages.
      return queueOffset !== 0n ? ResponseCode.PULL_OFFSET_MOVED : ResponseCode.PULL_NOT_FOUND;
    case GetMessageStatus.OFFSET_FOUND_NULL:
    case GetMessageStatus.OFFSET_OVERFLOW_ONE:
      return ResponseCode.PULL_NOT_FOUND;
    case GetMessageStatus.OFFSET_OVERFLOW_BADLY:
    case GetMessageStatus.OFFSET_TOO_SMALL:
      return ResponseCode.PULL_OFFSET_MOVED;
  }
}

/** STORETIMESTAMP of a stored record (it follows the born host, whose width the sys flag gives). */
function storeTimestampOf(record: Buffer): number {
  const sysFlag = record.readInt32BE(StoredRecordPosition.SYS_FLAG);
  return Number(record.readBigInt64BE(StoredRecordPosition.BORN_HOST + bornHostLength(sysFlag)));
}

/** Upstream's SUCCESS bookkeeping: messages and bytes got, how far behind the last one was, latency. */
function recordGetStats(
  broker: BrokerContext,
  h: PullMessageRequestHeader,
  result: GetMessageResult,
  begin: number,
): void {
  const stats = broker.brokerStatsManager;
  const count = result.messages.length;
  stats.incGroupGetNums(h.consumerGroup, h.topic, count);
  stats.incGroupGetSize(h.consumerGroup, h.topic, result.bufferTotalSize);
  stats.incBrokerGetNums(count);
  const last = result.messages[count - 1];
  const now = broker.clock.now();
  if (last !== undefined && last.length >= StoredRecordPosition.BORN_HOST + 28) {
    stats.recordDiskFallBehindTime(h.consumerGroup, h.topic, h.queueId, now - storeTimestampOf(last));
  }
  stats.incGroupGetLatency(h.consumerGroup, h.topic, h.queueId, now - begin);
}

/** The broker's own address as a message host (born and store host of the events it writes). */
function brokerHost(broker: BrokerContext): HostAddress {
  const { host, port } = parseAddress(broker.brokerAddr);
  return { address: host, port };
}

/** Writes the OFFSET_MOVED_EVENT message; a failure is logged, as upstream. */
async function generateOffsetMovedEvent(
  broker: BrokerContext,
  h: PullMessageRequestHeader,
  offsetNew: bigint,
): Promise<void> {
  const event = {
    consumerGroup: h.consumerGroup,
    messageQueue: { topic: h.topic, brokerName: broker.config.brokerName, queueId: h.queueId },
    offsetRequest: h.queueOffset,
    offsetNew,
  };
  try {
    const message = offsetMovedEventMessage(event, brokerHost(broker), broker.clock.now());
    const result = await broker.messageStore.putMessage(message);
    if (result.putMessageStatus !== 'PUT_OK') {
      broker.logger.warn('generateOffsetMovedEvent failed', { status: result.putMessageStatus });
    }
  } catch (error) {
    broker.logger.warn('generateOffsetMovedEvent Exception', { error: describe(error) });
  }
}

/**
 * One pass of upstream's processRequest. `brokerAllowSuspend` is true for a request as it arrives and
 * false for the re-run of a held one, which is always answered and never commits the offset again.
 */
export async function processPullRequest(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  brokerAllowSuspend: boolean,
): Promise<RemotingCommand> {
  const begin = broker.clock.now();
  const h = decodeHeader(PullMessageRequestHeader, request.extFields);
  const config = broker.config;
  if (!PermName.isReadable(config.brokerPermission)) {
    return refuse(
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${config.brokerIP1}] pulling message is forbidden`,
    );
  }
  const group = checkConsumeGroup(broker, request, h.consumerGroup, FAQ_TIP);
  if (isGroupRefusal(group)) return group;
  const hasSuspendFlag = PullSysFlag.hasSuspendFlag(h.sysFlag);
  const hasCommitOffsetFlag = PullSysFlag.hasCommitOffsetFlag(h.sysFlag);
  const suspendTimeoutMillis = hasSuspendFlag ? Number(h.suspendTimeoutMillis) : 0;

  const topicConfig = broker.topicConfigManager.selectTopicConfig(h.topic);
  if (topicConfig === undefined) {
    broker.logger.error('the topic not exist', { topic: h.topic, consumer: ctx.remoteAddress });
    return refuse(
      request,
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${h.topic}] not exist, apply first please! ${FAQ_TIP}`,
    );
  }
  if (!PermName.isReadable(topicConfig.perm)) {
    return refuse(request, ResponseCode.NO_PERMISSION, `the topic[${h.topic}] pulling message is forbidden`);
  }
  if (h.queueId < 0 || h.queueId >= topicConfig.readQueueNums) {
    // Java prints the channel's InetSocketAddress, hence the leading slash.
    const errorInfo = `queueId[${h.queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[/${ctx.remoteAddress}]`;
    broker.logger.warn(errorInfo);
    return refuse(request, ResponseCode.SYSTEM_ERROR, errorInfo);
  }

  const subscription = findSubscription(broker, request, h, group, ctx.connection);
  if (!('subscriptionData' in subscription)) return subscription;
  const { subscriptionData, consumerFilterData } = subscription;
  const filterType = filterExpressionType(subscriptionData);
  // NAMED needs no enablePropertyFilter: configuring namedFilterModule is the operator's consent.
  if (!isTagType(filterType) && !isNamedType(filterType) && !config.enablePropertyFilter) {
    return refuse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The broker does not support consumer to filter message by ${filterType}`,
    );
  }
  const onFailure = (error: unknown) =>
    broker.consumerFilterManager.evaluationFailed(h.topic, h.consumerGroup, error);
  const messageFilter: MessageFilter = config.filterSupportRetry
    ? new ExpressionForRetryMessageFilter(
        subscriptionData,
        consumerFilterData,
        broker.consumerFilterManager,
        onFailure,
      )
    : new ExpressionMessageFilter(subscriptionData, consumerFilterData, onFailure);

  // Committed before the read is awaited, not after as upstream's (synchronous) order has it: an
  // UPDATE_CONSUMER_OFFSET the consumer sent after this pull (its shutdown persist) must not be
  // overwritten by this pull's older offset when the read yields to it.
  if (brokerAllowSuspend && hasCommitOffsetFlag && config.brokerRole !== 'SLAVE') {
    broker.consumerOffsetManager.commitOffset(
      ctx.remoteAddress,
      h.consumerGroup,
      h.topic,
      h.queueId,
      h.commitOffset,
    );
  }
  const result = await broker.messageStore.getMessage(
    h.consumerGroup,
    h.topic,
    h.queueId,
    h.queueOffset,
    h.maxMsgNums,
    messageFilter,
  );

  // Upstream sets the suggestion three times; only the slaveReadEnable branch's survives. Its slave
  // branch also sets PULL_RETRY_IMMEDIATELY, which the status switch below always overwrites.
  let suggestWhichBrokerId: bigint = MixAll.MASTER_ID;
  if (config.slaveReadEnable) {
    suggestWhichBrokerId = result.suggestPullingFromSlave
      ? group.whichBrokerWhenConsumeSlowly
      : group.brokerId;
  }
  let code = responseCodeOf(result, h.queueOffset);
  if (code === ResponseCode.PULL_OFFSET_MOVED) {
    broker.logger.info('pull offset moved', {
      status: result.status,
      group: h.consumerGroup,
      topic: h.topic,
      queueId: h.queueId,
      requestOffset: String(h.queueOffset),
      nextBeginOffset: String(result.nextBeginOffset),
      minOffset: String(result.minOffset),
      maxOffset: String(result.maxOffset),
      consumer: ctx.remoteAddress,
    });
  }

  let held: Promise<RemotingCommand> | undefined;
  let body: Buffer | undefined;
  switch (code) {
    case ResponseCode.SUCCESS:
      recordGetStats(broker, h, result, begin);
      body = joinRecords(result.messages, result.bufferTotalSize);
      break;
    case ResponseCode.PULL_NOT_FOUND:
      if (brokerAllowSuspend && hasSuspendFlag) {
        const pollingTimeMills = config.longPollingEnable
          ? suspendTimeoutMillis
          : config.shortPollingTimeMills;
        held = new Promise<RemotingCommand>((resolve) => {
          const pullRequest = new PullRequest(
            request,
            ctx,
            pollingTimeMills,
            broker.clock.now(),
            h.queueOffset,
            subscriptionData,
            messageFilter,
            resolve,
          );
          broker.pullRequestHoldService.suspendPullRequest(h.topic, h.queueId, pullRequest);
        });
        ctx.park?.(request);
      }
      break;
    case ResponseCode.PULL_OFFSET_MOVED:
      if (config.brokerRole !== 'SLAVE' || config.offsetCheckInSlave) {
        await generateOffsetMovedEvent(broker, h, result.nextBeginOffset);
        broker.logger.warn('PULL_OFFSET_MOVED:correction offset', {
          topic: h.topic,
          group: h.consumerGroup,
          requestOffset: String(h.queueOffset),
          newOffset: String(result.nextBeginOffset),
          suggestBrokerId: String(suggestWhichBrokerId),
        });
      } else {
        suggestWhichBrokerId = group.brokerId;
        code = ResponseCode.PULL_RETRY_IMMEDIATELY;
        broker.logger.warn('PULL_OFFSET_MOVED:none correction', {
          topic: h.topic,
          group: h.consumerGroup,
          requestOffset: String(h.queueOffset),
          suggestBrokerId: String(suggestWhichBrokerId),
        });
      }
      break;
  }

  if (held !== undefined) return held;

  const response = createResponse(request, code, {
    remark: result.status,
    extFields: encodeHeaderFast(PullMessageResponseHeader, {
      suggestWhichBrokerId,
      nextBeginOffset: result.nextBeginOffset,
      minOffset: result.minOffset,
      maxOffset: result.maxOffset,
    }),
    body,
  });
  response.fastEncodedKeys = RESPONSE_FAST_KEYS;
  return response;
}

/** PULL_MESSAGE as it arrives: suspension allowed. */
export const pullMessage: BrokerRequestHandler = (broker, ctx, request) =>
  processPullRequest(broker, ctx, request, true);

/**
 * Upstream executeRequestWhenWakeup: re-runs a held request without suspension and answers it. It
 * runs after the current turn, so a batch of messages dispatched together is pulled together.
 */
export function executeRequestWhenWakeup(broker: BrokerContext, pullRequest: PullRequest): void {
  queueMicrotask(() => {
    if (!pullRequest.channelOpen) return;
    pullRequest.respond(
      processPullRequest(broker, pullRequest.clientChannel, pullRequest.requestCommand, false),
    );
  });
}
