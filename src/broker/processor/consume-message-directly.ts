import { ValidationError } from '../../common/errors.js';
import { decodeOffsetMsgId } from '../../common/message/message-id.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';
import { callConsumer } from './call-consumer.js';

/**
 * CONSUME_MESSAGE_DIRECTLY (309, `mqadmin consumeMessage`): the stored record the offset message id
 * names becomes the body, the header gains this broker's name, and the consumer named by clientId
 * consumes it; its ConsumeMessageDirectlyResult is the answer. The message is looked up first, as
 * upstream does, so a bad id fails before the consumer is looked for.
 */
export const consumeMessageDirectly: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(ConsumeMessageDirectlyResultRequestHeader, request.extFields);
  if (h.msgId === undefined) throw new ValidationError('CONSUME_MESSAGE_DIRECTLY: msgId is missing');
  const { offset } = decodeOffsetMsgId(h.msgId);
  const record = broker.messageStore.selectOneMessageByOffset(offset);
  if (record === undefined) {
    // Upstream fails here with a NullPointerException; this says why.
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `can not find message by the offset, ${offset}`,
    });
  }
  const forwarded = {
    ...request,
    extFields: { ...request.extFields, brokerName: broker.config.brokerName },
    body: record,
  };
  return callConsumer(broker, RequestCode.CONSUME_MESSAGE_DIRECTLY, forwarded, h.consumerGroup, h.clientId);
};
