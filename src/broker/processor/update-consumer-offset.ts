import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { UpdateConsumerOffsetRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** UPDATE_CONSUMER_OFFSET (15, sent oneway by clients): records the group's next offset in memory. */
export const updateConsumerOffset: BrokerRequestHandler = (broker, ctx, request) => {
  const h = decodeHeader(UpdateConsumerOffsetRequestHeader, request.extFields);
  broker.consumerOffsetManager.commitOffset(
    ctx.remoteAddress,
    h.consumerGroup,
    h.topic,
    h.queueId,
    h.commitOffset,
  );
  return createResponse(request, ResponseCode.SUCCESS);
};
