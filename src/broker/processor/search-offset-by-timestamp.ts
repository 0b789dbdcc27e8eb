import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  SearchOffsetRequestHeader,
  SearchOffsetResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** SEARCH_OFFSET_BY_TIMESTAMP (29): the first offset stored at or after the timestamp. */
export const searchOffsetByTimestamp: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(SearchOffsetRequestHeader, request.extFields);
  const offset = await broker.messageStore.getOffsetInQueueByTime(h.topic, h.queueId, h.timestamp);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(SearchOffsetResponseHeader, { offset }),
  });
};
