import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  GetMinOffsetRequestHeader,
  GetMinOffsetResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_MIN_OFFSET (31): the queue's oldest offset still stored. */
export const getMinOffset: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(GetMinOffsetRequestHeader, request.extFields);
  const offset = await broker.messageStore.getMinOffsetInQueue(h.topic, h.queueId);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(GetMinOffsetResponseHeader, { offset }),
  });
};
