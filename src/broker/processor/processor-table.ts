/**
 * The broker's request handlers, one per request code, each in its own file (upstream spreads them
 * over ClientManageProcessor, ConsumerManageProcessor and AdminBrokerProcessor). Codes without a
 * handler get REQUEST_CODE_NOT_SUPPORTED " request type <code> not supported" from the transport, as
 * upstream's AdminBrokerProcessor answers them. Send, pull and the other store-backed processors
 * join the table later.
 */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import type { ProcessorContext, RemotingServer, RequestProcessor } from '../../remoting/transport/index.js';
import { ackMessage } from '../pop/ack-message.js';
import { changeInvisibleTime } from '../pop/change-invisible-time.js';
import { notification } from '../pop/notification-processor.js';
import { peekMessage } from '../pop/peek-message-processor.js';
import { pollingInfo } from '../pop/polling-info-processor.js';
import { popMessage } from '../pop/pop-message-processor.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';
import { checkClientConfig } from './check-client-config.js';
import { cleanExpiredConsumeQueue } from './clean-expired-consumequeue.js';
import { cleanUnusedTopic } from './clean-unused-topic.js';
import { cloneGroupOffset } from './clone-group-offset.js';
import { consumeMessageDirectly } from './consume-message-directly.js';
import { consumerSendMsgBack } from './consumer-send-msg-back.js';
import { deleteExpiredCommitLog } from './delete-expired-commitlog.js';
import { deleteSubscriptionGroup } from './delete-subscription-group.js';
import { deleteTopicInBroker } from './delete-topic-in-broker.js';
import { endTransaction } from './end-transaction.js';
import { getAllConsumerOffset } from './get-all-consumer-offset.js';
import { getAllDelayOffset } from './get-all-delay-offset.js';
import { getAllMessageRequestMode } from './get-all-message-request-mode.js';
import { getAllSubscriptionGroupConfig } from './get-all-subscription-group-config.js';
import { getAllTopicConfig } from './get-all-topic-config.js';
import { getBrokerConfig } from './get-broker-config.js';
import { getBrokerConsumeStats } from './get-broker-consume-stats.js';
import { getBrokerRuntimeInfo } from './get-broker-runtime-info.js';
import { getConsumeStats } from './get-consume-stats.js';
import { getConsumerConnectionList } from './get-consumer-connection-list.js';
import { getConsumerListByGroup } from './get-consumer-list-by-group.js';
import { getConsumerRunningInfo } from './get-consumer-running-info.js';
import { getConsumerStatus } from './get-consumer-status.js';
import { getEarliestMsgStoretime } from './get-earliest-msg-storetime.js';
import { getMaxOffset } from './get-max-offset.js';
import { getMinOffset } from './get-min-offset.js';
import { getProducerConnectionList } from './get-producer-connection-list.js';
import { getTopicConfig } from './get-topic-config.js';
import { getTopicStatsInfo } from './get-topic-stats-info.js';
import { heartBeat } from './heart-beat.js';
import { lockBatchMQ } from './lock-batch-mq.js';
import { pullMessage } from './pull-message.js';
import { queryAssignment } from './query-assignment.js';
import { queryConsumeQueue } from './query-consume-queue.js';
import { queryConsumerOffset } from './query-consumer-offset.js';
import { queryMessage } from './query-message.js';
import { queryTopicConsumeByWho } from './query-topic-consume-by-who.js';
import { resetOffset } from './reset-offset.js';
import { searchOffsetByTimestamp } from './search-offset-by-timestamp.js';
import { sendMessage } from './send-message.js';
import { setMessageRequestMode } from './set-message-request-mode.js';
import { unlockBatchMQ } from './unlock-batch-mq.js';
import { unregisterClient } from './unregister-client.js';
import { updateAndCreateSubscriptionGroup } from './update-and-create-subscription-group.js';
import { updateAndCreateTopic } from './update-and-create-topic.js';
import { updateBrokerConfig } from './update-broker-config.js';
import { updateConsumerOffset } from './update-consumer-offset.js';
import { viewBrokerStatsData } from './view-broker-stats-data.js';
import { viewMessageById } from './view-message-by-id.js';

export const BROKER_REQUEST_HANDLERS: ReadonlyMap<number, BrokerRequestHandler> = new Map([
  // ClientManageProcessor
  [RequestCode.HEART_BEAT, heartBeat],
  [RequestCode.UNREGISTER_CLIENT, unregisterClient],
  [RequestCode.CHECK_CLIENT_CONFIG, checkClientConfig],
  // ConsumerManageProcessor
  [RequestCode.GET_CONSUMER_LIST_BY_GROUP, getConsumerListByGroup],
  [RequestCode.UPDATE_CONSUMER_OFFSET, updateConsumerOffset],
  [RequestCode.QUERY_CONSUMER_OFFSET, queryConsumerOffset],
  // PullMessageProcessor (main port only, see NOT_ON_VIP_CHANNEL). 5.x clients' DefaultLitePullConsumer
  // pulls with LITE_PULL_MESSAGE (the header's sysFlag carries the lite-pull bit); the 5.x broker
  // serves it with the same processor (litePullMessageEnable defaults to true).
  [RequestCode.PULL_MESSAGE, pullMessage],
  [RequestCode.LITE_PULL_MESSAGE, pullMessage],
  // PopMessageProcessor (5.x POP)
  [RequestCode.POP_MESSAGE, popMessage],
  [RequestCode.NOTIFICATION, notification],
  [RequestCode.PEEK_MESSAGE, peekMessage],
  [RequestCode.POLLING_INFO, pollingInfo],
  // QueryMessageProcessor
  [RequestCode.QUERY_MESSAGE, queryMessage],
  [RequestCode.VIEW_MESSAGE_BY_ID, viewMessageById],
  // AdminBrokerProcessor
  [RequestCode.LOCK_BATCH_MQ, lockBatchMQ],
  [RequestCode.UNLOCK_BATCH_MQ, unlockBatchMQ],
  [RequestCode.UPDATE_AND_CREATE_TOPIC, updateAndCreateTopic],
  [RequestCode.DELETE_TOPIC_IN_BROKER, deleteTopicInBroker],
  [RequestCode.GET_ALL_TOPIC_CONFIG, getAllTopicConfig],
  [RequestCode.GET_TOPIC_CONFIG, getTopicConfig],
  [RequestCode.UPDATE_BROKER_CONFIG, updateBrokerConfig],
  [RequestCode.GET_BROKER_CONFIG, getBrokerConfig],
  [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, searchOffsetByTimestamp],
  [RequestCode.GET_MAX_OFFSET, getMaxOffset],
  [RequestCode.GET_MIN_OFFSET, getMinOffset],
  [RequestCode.GET_EARLIEST_MSG_STORETIME, getEarliestMsgStoretime],
  [RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, updateAndCreateSubscriptionGroup],
  [RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, getAllSubscriptionGroupConfig],
  [RequestCode.DELETE_SUBSCRIPTIONGROUP, deleteSubscriptionGroup],
  [RequestCode.GET_CONSUMER_CONNECTION_LIST, getConsumerConnectionList],
  [RequestCode.GET_PRODUCER_CONNECTION_LIST, getProducerConnectionList],
  [RequestCode.GET_ALL_CONSUMER_OFFSET, getAllConsumerOffset],
  [RequestCode.CLONE_GROUP_OFFSET, cloneGroupOffset],
  [RequestCode.GET_ALL_DELAY_OFFSET, getAllDelayOffset],
  [RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, queryTopicConsumeByWho],
  [RequestCode.GET_TOPIC_STATS_INFO, getTopicStatsInfo],
  [RequestCode.GET_CONSUME_STATS, getConsumeStats],
  [RequestCode.GET_BROKER_CONSUME_STATS, getBrokerConsumeStats],
  [RequestCode.QUERY_CONSUME_QUEUE, queryConsumeQueue],
  [RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE, cleanExpiredConsumeQueue],
  [RequestCode.CLEAN_UNUSED_TOPIC, cleanUnusedTopic],
  [RequestCode.DELETE_EXPIRED_COMMITLOG, deleteExpiredCommitLog],
  [RequestCode.GET_BROKER_RUNTIME_INFO, getBrokerRuntimeInfo],
  [RequestCode.VIEW_BROKER_STATS_DATA, viewBrokerStatsData],
  // AdminBrokerProcessor, requests that reach the group's consumers
  [RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, resetOffset],
  [RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, getConsumerStatus],
  [RequestCode.GET_CONSUMER_RUNNING_INFO, getConsumerRunningInfo],
  [RequestCode.CONSUME_MESSAGE_DIRECTLY, consumeMessageDirectly],
  // SendMessageProcessor: one handler, the header's batch flag picks the path
  [RequestCode.SEND_MESSAGE, sendMessage],
  [RequestCode.SEND_MESSAGE_V2, sendMessage],
  [RequestCode.SEND_BATCH_MESSAGE, sendMessage],
  [RequestCode.CONSUMER_SEND_MSG_BACK, consumerSendMsgBack],
  // EndTransactionProcessor
  [RequestCode.END_TRANSACTION, endTransaction],
  // AckMessageProcessor, ChangeInvisibleTimeProcessor (POP)
  [RequestCode.ACK_MESSAGE, ackMessage],
  [RequestCode.BATCH_ACK_MESSAGE, ackMessage],
  [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, changeInvisibleTime],
  // QueryAssignmentProcessor (server-side rebalance); 402 is AdminBrokerProcessor's
  [RequestCode.QUERY_ASSIGNMENT, queryAssignment],
  [RequestCode.SET_MESSAGE_REQUEST_MODE, setMessageRequestMode],
  [RequestCode.GET_ALL_MESSAGE_REQUEST_MODE, getAllMessageRequestMode],
]);

/** Codes the VIP channel (listenPort - 2) does not serve: upstream registers the pulls on the main port only. */
export const NOT_ON_VIP_CHANNEL: ReadonlySet<number> = new Set([
  RequestCode.PULL_MESSAGE,
  RequestCode.LITE_PULL_MESSAGE,
]);

/** Hands each request to its code's handler; never rejects a request for load. */
export class BrokerRequestProcessor implements RequestProcessor {
  constructor(
    private readonly broker: BrokerContext,
    private readonly handler: BrokerRequestHandler,
  ) {}

  processRequest(
    ctx: ProcessorContext,
    request: RemotingCommand,
  ): RemotingCommand | Promise<RemotingCommand> {
    return this.handler(this.broker, ctx, request);
  }

  rejectRequest(): boolean {
    return false;
  }
}

/**
 * Registers every handler of the table on `server`; on the VIP server (`vip`) all but
 * NOT_ON_VIP_CHANNEL. Later tables (send, pull) register the same way.
 */
export function registerBrokerProcessors(
  server: RemotingServer,
  broker: BrokerContext,
  handlers: ReadonlyMap<number, BrokerRequestHandler> = BROKER_REQUEST_HANDLERS,
  options: { readonly vip?: boolean } = {},
): void {
  for (const [code, handler] of handlers) {
    if (options.vip === true && NOT_ON_VIP_CHANNEL.has(code)) continue;
    server.registerProcessor(code, new BrokerRequestProcessor(broker, handler));
  }
}
