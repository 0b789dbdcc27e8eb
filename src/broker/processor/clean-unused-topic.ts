import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * CLEAN_UNUSED_TOPIC (316, `mqadmin cleanUnusedTopic`): the store drops the consume queues of every
 * topic this broker no longer has a config for (system topics are kept). Always SUCCESS.
 */
export const cleanUnusedTopic: BrokerRequestHandler = (broker, ctx, request) => {
  broker.logger.warn('cleanUnusedTopic invoked', { client: ctx.remoteAddress });
  broker.messageStore.cleanUnusedTopic(new Set(broker.topicConfigManager.topicConfigTable.keys()));
  return createResponse(request, ResponseCode.SUCCESS);
};
