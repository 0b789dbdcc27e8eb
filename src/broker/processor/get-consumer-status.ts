import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetConsumerStatusRequestHeader } from '../../remoting/protocol/headers/index.js';
import { getConsumeStatus } from '../client/broker2client.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223, `mqadmin getConsumerStatus`): each online consumer of the
 * group (or only the one whose clientId is `clientAddr`) asked for its offsets in the topic,
 * answered as GetConsumerStatusBody.consumerTable.
 */
export const getConsumerStatus: BrokerRequestHandler = async (broker, ctx, request) => {
  const h = decodeHeader(GetConsumerStatusRequestHeader, request.extFields);
  broker.logger.info('[get-consumer-status] get consumer status', {
    by: ctx.remoteAddress,
    topic: h.topic,
    group: h.group,
  });
  const r = await getConsumeStatus(broker, h.topic, h.group, h.clientAddr);
  return createResponse(request, r.code, { remark: r.remark, body: r.body });
};
