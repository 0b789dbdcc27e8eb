import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  GetEarliestMsgStoretimeRequestHeader,
  GetEarliestMsgStoretimeResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_EARLIEST_MSG_STORETIME (32): store time of the queue's oldest message. */
export const getEarliestMsgStoretime: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(GetEarliestMsgStoretimeRequestHeader, request.extFields);
  const timestamp = await broker.messageStore.getEarliestMessageTime(h.topic, h.queueId);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(GetEarliestMsgStoretimeResponseHeader, { timestamp }),
  });
};
