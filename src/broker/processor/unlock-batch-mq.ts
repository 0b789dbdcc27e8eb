import { decodeUnlockBatchRequestBody } from '../../common/protocol/lock-batch-body.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** UNLOCK_BATCH_MQ (42): releases the client's locks on the queues; others' locks stay. Always SUCCESS. */
export const unlockBatchMQ: BrokerRequestHandler = (broker, _ctx, request) => {
  const body = decodeUnlockBatchRequestBody(request.body);
  broker.rebalanceLockManager.unlockBatch(body.consumerGroup, body.mqSet, body.clientId);
  return createResponse(request, ResponseCode.SUCCESS);
};
