/**
 * POLLING_INFO (200055), upstream PollingInfoProcessor: how many POP requests are parked under
 * `topic@group@queueId` (queueId -1: the pops of every queue).
 */
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import { PollingInfoRequestHeader } from '../../remoting/protocol/headers/polling-info-request-header.js';
import { PollingInfoResponseHeader } from '../../remoting/protocol/headers/polling-info-response-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from '../processor/broker-context.js';
import { checkPopTarget, isRefusal } from './pop-checks.js';

export const pollingInfo: BrokerRequestHandler = (broker, ctx, request) => {
  const h = decodeHeader(PollingInfoRequestHeader, request.extFields);
  const checked = checkPopTarget(broker, ctx, request, h);
  if (isRefusal(checked)) return checked;
  const queueId = h.queueId < 0 ? -1 : h.queueId;
  const pollingNum = broker.pop.popLongPollingService.pollingNum(h.topic, h.consumerGroup, queueId);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(PollingInfoResponseHeader, { pollingNum }),
  });
};
