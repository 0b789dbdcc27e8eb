import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): `{"dataVersion":..,"subscriptionGroupTable":..}` (compact). */
export const getAllSubscriptionGroupConfig: BrokerRequestHandler = (broker, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: Buffer.from(broker.subscriptionGroupManager.encode(false), 'utf8'),
  });
