import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { ViewMessageRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * VIEW_MESSAGE_BY_ID (33): the stored record at a commit-log offset (the one an offset message id
 * names) as the body; SYSTEM_ERROR with upstream's remark when no record starts there.
 */
export const viewMessageById: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(ViewMessageRequestHeader, request.extFields);
  const record = broker.messageStore.selectOneMessageByOffset(h.offset);
  if (record === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `can not find message by the offset, ${h.offset}`,
    });
  }
  return createResponse(request, ResponseCode.SUCCESS, { body: record });
};
