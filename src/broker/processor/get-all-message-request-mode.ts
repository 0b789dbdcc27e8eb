import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_ALL_MESSAGE_REQUEST_MODE (402), upstream AdminBrokerProcessor.getAllMessageRequestMode (a
 * slave syncs the table with it): messageRequestMode.json's content, compact.
 */
export const getAllMessageRequestMode: BrokerRequestHandler = (broker, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: Buffer.from(broker.messageRequestModeManager.encode(false), 'utf8'),
  });
