import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_ALL_DELAY_OFFSET (45): the delay levels' offsets as delayOffset.json holds them, compact
 * (`{"offsetTable":{1:12,3:4}}`), which a slave writes to its own delayOffset.json as received. A
 * broker whose store has no schedule service answers as upstream does for a store that is not a
 * DefaultMessageStore.
 */
export const getAllDelayOffset: BrokerRequestHandler = (broker, ctx, request) => {
  const schedule = broker.scheduleMessageService;
  if (schedule === undefined) {
    broker.logger.error('Delay offset not supported in this messagetore', { client: ctx.remoteAddress });
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: 'Delay offset not supported in this messagetore',
    });
  }
  return createResponse(request, ResponseCode.SUCCESS, { body: Buffer.from(schedule.encode(), 'utf8') });
};
