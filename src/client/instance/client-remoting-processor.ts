/**
 * ClientRemotingProcessor: the requests a broker sends to a client, answered as upstream answers
 * them. Any other code gets REQUEST_CODE_NOT_SUPPORTED from the transport's dispatcher.
 */
import type { Logger } from '../../common/logger.js';
import { MessageConst } from '../../common/message/message-const.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { encodeGetConsumerStatusBody } from '../../common/protocol/get-consumer-status-body.js';
import { decodeResetOffsetBody } from '../../common/protocol/reset-offset-body.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../remoting/protocol/headers/consume-message-directly-result-request-header.js';
import { GetConsumerRunningInfoRequestHeader } from '../../remoting/protocol/headers/get-consumer-running-info-request-header.js';
import { GetConsumerStatusRequestHeader } from '../../remoting/protocol/headers/get-consumer-status-request-header.js';
import { NotifyConsumerIdsChangedRequestHeader } from '../../remoting/protocol/headers/notify-consumer-ids-changed-request-header.js';
import { ResetOffsetRequestHeader } from '../../remoting/protocol/headers/reset-offset-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/connection.js';
import type { RequestProcessor } from '../../remoting/transport/processor.js';
import type { RemotingClient } from '../../remoting/transport/remoting-client.js';
import { withoutNamespace } from '../namespace.js';
import type { MQConsumerInner, MQProducerInner } from './inner.js';

/** What the processors need of the instance. */
export interface ClientRemotingHost {
  readonly clientId: string;
  readonly namespace: string | undefined;
  readonly logger: Logger;
  selectProducer(group: string): MQProducerInner | undefined;
  selectConsumer(group: string): MQConsumerInner | undefined;
  rebalanceImmediately(): void;
}

type Handler = (
  host: ClientRemotingHost,
  ctx: ProcessorContext,
  request: RemotingCommand,
) => Promise<RemotingCommand | undefined> | RemotingCommand | undefined;

function notFound(request: RemotingCommand, group: string): RemotingCommand {
  return createResponse(request, ResponseCode.SYSTEM_ERROR, {
    remark: `The Consumer Group <${group}> not exist in this consumer`,
  });
}

const checkTransactionState: Handler = (host, ctx, request) => {
  const header = decodeHeader(CheckTransactionStateRequestHeader, request.extFields);
  if (request.body === undefined) {
    host.logger.warn('checkTransactionState without a message', { brokerAddr: ctx.remoteAddress });
    return undefined;
  }
  const msg = decodeMessage(request.body, 0, { copyBody: true });
  if (host.namespace !== undefined) msg.topic = withoutNamespace(msg.topic, host.namespace);
  const uniqKey = msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
  if (uniqKey !== undefined && uniqKey !== '') msg.transactionId = uniqKey;
  const group = msg.getProperty(MessageConst.PROPERTY_PRODUCER_GROUP);
  if (group === undefined) {
    host.logger.warn('checkTransactionState without a producer group', { brokerAddr: ctx.remoteAddress });
    return undefined;
  }
  const producer = host.selectProducer(group);
  if (producer === undefined) {
    host.logger.debug('checkTransactionState for a group not here', { group });
    return undefined;
  }
  producer.checkTransactionState(ctx.remoteAddress, msg, header);
  return undefined;
};

const notifyConsumerIdsChanged: Handler = (host, ctx, request) => {
  const header = decodeHeader(NotifyConsumerIdsChangedRequestHeader, request.extFields);
  host.logger.info('consumer ids changed, rebalance immediately', {
    brokerAddr: ctx.remoteAddress,
    group: header.consumerGroup,
  });
  host.rebalanceImmediately();
  return undefined;
};

const resetOffset: Handler = async (host, ctx, request) => {
  const header = decodeHeader(ResetOffsetRequestHeader, request.extFields);
  host.logger.info('reset offset from broker', {
    brokerAddr: ctx.remoteAddress,
    topic: header.topic,
    group: header.group,
    timestamp: header.timestamp,
  });
  const offsets = request.body === undefined ? [] : decodeResetOffsetBody(request.body).offsetTable;
  const consumer = host.selectConsumer(header.group);
  if (consumer === undefined) {
    host.logger.info('reset offset for a group not here', { group: header.group });
    return undefined;
  }
  await consumer.resetOffset(header.topic, offsets);
  return undefined;
};

const getConsumeStatus: Handler = (host, _ctx, request) => {
  const header = decodeHeader(GetConsumerStatusRequestHeader, request.extFields);
  const table = host.selectConsumer(header.group)?.consumerStatus(header.topic) ?? [];
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeGetConsumerStatusBody({ messageQueueTable: table, consumerTable: [] }),
  });
};

const getConsumerRunningInfo: Handler = (host, _ctx, request) => {
  const header = decodeHeader(GetConsumerRunningInfoRequestHeader, request.extFields);
  const consumer = host.selectConsumer(header.consumerGroup);
  if (consumer === undefined) return notFound(request, header.consumerGroup);
  return createResponse(request, ResponseCode.SUCCESS, {
    body: consumer.consumerRunningInfo(header.jstackEnable),
  });
};

const consumeMessageDirectly: Handler = async (host, _ctx, request) => {
  const header = decodeHeader(ConsumeMessageDirectlyResultRequestHeader, request.extFields);
  const consumer = host.selectConsumer(header.consumerGroup);
  if (consumer === undefined) return notFound(request, header.consumerGroup);
  if (request.body === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'no message to consume' });
  }
  const msg = decodeMessage(request.body, 0, { copyBody: true });
  const body = await consumer.consumeMessageDirectly(msg, header.brokerName);
  return createResponse(request, ResponseCode.SUCCESS, { body });
};

const HANDLERS: ReadonlyArray<readonly [number, Handler]> = [
  [RequestCode.CHECK_TRANSACTION_STATE, checkTransactionState],
  [RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, notifyConsumerIdsChanged],
  [RequestCode.RESET_CONSUMER_CLIENT_OFFSET, resetOffset],
  [RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, getConsumeStatus],
  [RequestCode.GET_CONSUMER_RUNNING_INFO, getConsumerRunningInfo],
  [RequestCode.CONSUME_MESSAGE_DIRECTLY, consumeMessageDirectly],
];

/** The codes a client answers (tests and docs list them). */
export const CLIENT_REQUEST_CODES: readonly number[] = HANDLERS.map(([code]) => code);

/**
 * Registers every handler on `remoting`. A request that cannot be decoded is answered by the
 * dispatcher (SYSTEM_ERROR with the reason, nothing if oneway) with a warn line: nothing a broker
 * sends can stop the client.
 */
export function registerClientProcessors(remoting: RemotingClient, host: ClientRemotingHost): void {
  for (const [code, handler] of HANDLERS) {
    const processor: RequestProcessor = { processRequest: (ctx, request) => handler(host, ctx, request) };
    remoting.registerProcessor(code, processor);
  }
}
