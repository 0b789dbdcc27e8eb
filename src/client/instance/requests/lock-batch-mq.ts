/**
 * LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42): orderly consumers lock their queues on the master so
 * that no two members of a group consume one queue at once.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import {
  decodeLockBatchResponseBody,
  encodeLockBatchRequestBody,
  encodeUnlockBatchRequestBody,
  type LockBatchRequestBody,
} from '../../../common/protocol/lock-batch-body.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess } from './support.js';

export function buildLockBatchMQRequest(body: LockBatchRequestBody): RemotingCommand {
  return createRequest(RequestCode.LOCK_BATCH_MQ, { body: encodeLockBatchRequestBody(body) });
}

/** The queues the broker locked for this client (the others are held by another member). */
export function parseLockBatchMQResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
): MessageQueue[] {
  expectSuccess(response, { brokerAddr, group });
  return decodeLockBatchResponseBody(response.body).lockOKMQSet;
}

export function buildUnlockBatchMQRequest(body: LockBatchRequestBody): RemotingCommand {
  return createRequest(RequestCode.UNLOCK_BATCH_MQ, { body: encodeUnlockBatchRequestBody(body) });
}

export function parseUnlockBatchMQResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
): void {
  expectSuccess(response, { brokerAddr, group });
}
