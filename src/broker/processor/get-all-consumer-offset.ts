import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_ALL_CONSUMER_OFFSET (43): `{"offsetTable":{"topic@group":{0:118}}}` (compact, bare int keys). */
export const getAllConsumerOffset: BrokerRequestHandler = (broker, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: Buffer.from(broker.consumerOffsetManager.encode(false), 'utf8'),
  });
