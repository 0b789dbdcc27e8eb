import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  GetMaxOffsetRequestHeader,
  GetMaxOffsetResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** GET_MAX_OFFSET (30): the offset the queue's next message will get. */
export const getMaxOffset: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(GetMaxOffsetRequestHeader, request.extFields);
  const offset = await broker.messageStore.getMaxOffsetInQueue(h.topic, h.queueId);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(GetMaxOffsetResponseHeader, { offset }),
  });
};
