import { decodeCheckClientRequestBody, isTagType } from '../../common/protocol/check-client-request-body.js';
import { filterExpressionType, isNamedType } from '../../filter/named-expression.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode as Codes } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * CHECK_CLIENT_CONFIG (46): can this broker filter by the subscription's expression type? TAG always;
 * anything else needs enablePropertyFilter and an expression the consumer filter compiles
 * (SUBSCRIPTION_PARSE_FAILED with its message otherwise). Without a filter compiler plugged in, a
 * non-TAG expression is accepted once property filtering is on. A NAMED subscription (or one with
 * upstream's class-filter flag) needs no enablePropertyFilter, only a filter of that name.
 */
export const checkClientConfig: BrokerRequestHandler = (broker, _ctx, request) => {
  const body = decodeCheckClientRequestBody(request.body);
  const sub = body.subscriptionData;
  if (sub === undefined) return createResponse(request, Codes.SUCCESS);
  const type = filterExpressionType(sub);
  if (isTagType(type)) return createResponse(request, Codes.SUCCESS);
  if (!isNamedType(type) && !broker.config.enablePropertyFilter) {
    return createResponse(request, Codes.SYSTEM_ERROR, {
      remark: `The broker does not support consumer to filter message by ${type}`,
    });
  }
  try {
    broker.consumerFilter?.compile?.(type, sub.subString);
  } catch (error) {
    broker.logger.warn('Client filter message, but failed to compile expression', {
      client: body.clientId,
      group: body.group,
      error: error instanceof Error ? error.message : String(error),
    });
    return createResponse(request, Codes.SUBSCRIPTION_PARSE_FAILED, {
      remark: error instanceof Error ? error.message : String(error),
    });
  }
  return createResponse(request, Codes.SUCCESS);
};
