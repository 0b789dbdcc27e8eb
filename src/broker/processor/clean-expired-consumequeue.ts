import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * CLEAN_EXPIRED_CONSUMEQUEUE (306, `mqadmin cleanExpiredCQ`): the store destroys every consume queue
 * (the schedule topic's excepted) whose last entry points below the commit log's first offset, and
 * forgets its next queue offset, as upstream's cleanExpiredConsumerQueue. Always SUCCESS.
 */
export const cleanExpiredConsumeQueue: BrokerRequestHandler = (broker, ctx, request) => {
  broker.logger.warn('cleanExpiredConsumeQueue invoked', { client: ctx.remoteAddress });
  broker.messageStore.cleanExpiredConsumerQueue();
  return createResponse(request, ResponseCode.SUCCESS);
};
