import {
  decodeLockBatchRequestBody,
  encodeLockBatchResponseBody,
} from '../../common/protocol/lock-batch-body.js';
import { javaMessageQueueSetOrder } from '../../common/protocol/message-queue-value.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * LOCK_BATCH_MQ (41): locks (or renews) the requested queues for the client; the body lists the
 * queues it holds afterwards. Queues are taken in the order upstream iterates the request's set and
 * written in the order of its `new HashSet<>(mqSet.size())` answer, so the bytes match.
 */
export const lockBatchMQ: BrokerRequestHandler = (broker, _ctx, request) => {
  const body = decodeLockBatchRequestBody(request.body);
  const requested = javaMessageQueueSetOrder(body.mqSet);
  const locked = broker.rebalanceLockManager.tryLockBatch(body.consumerGroup, requested, body.clientId);
  return createResponse(request, ResponseCode.SUCCESS, {
    body: encodeLockBatchResponseBody({
      lockOKMQSet: javaMessageQueueSetOrder(locked, requested.length),
    }),
  });
};
