import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { UnregisterClientRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * UNREGISTER_CLIENT (35): a client shutting down leaves its producer and/or consumer group on this
 * connection; the consumer group's other members are told unless the group opts out.
 */
export const unregisterClient: BrokerRequestHandler = (broker, ctx, request) => {
  const header = decodeHeader(UnregisterClientRequestHeader, request.extFields);
  if (header.producerGroup !== undefined) {
    broker.producerManager.unregisterProducer(header.producerGroup, ctx.connection, header.clientID);
  }
  if (header.consumerGroup !== undefined) {
    const groupConfig = broker.subscriptionGroupManager.subscriptionGroupTable.get(header.consumerGroup);
    const notify = groupConfig?.notifyConsumerIdsChangedEnable ?? true;
    broker.consumerManager.unregisterConsumer(header.consumerGroup, ctx.connection, notify);
  }
  return createResponse(request, ResponseCode.SUCCESS);
};
