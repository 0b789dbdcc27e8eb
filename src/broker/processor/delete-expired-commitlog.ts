import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * DELETE_EXPIRED_COMMITLOG (329, `mqadmin deleteExpiredCommitLog`): the next retention rounds delete
 * commit-log files older than fileReservedTime at any hour, not only at deleteWhen (upstream's
 * executeDeleteFilesManually). Always SUCCESS; the deleting happens in those rounds.
 */
export const deleteExpiredCommitLog: BrokerRequestHandler = (broker, ctx, request) => {
  broker.logger.warn('deleteExpiredCommitLog invoked', { client: ctx.remoteAddress });
  broker.messageStore.executeDeleteFilesManually();
  return createResponse(request, ResponseCode.SUCCESS);
};
