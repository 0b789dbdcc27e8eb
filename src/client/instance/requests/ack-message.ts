/**
 * ACK_MESSAGE (200051) and BATCH_ACK_MESSAGE (200151): a popped message (by its receipt handle) is
 * done. Upstream's client reads any answer but SUCCESS as AckStatus.NO_EXIST (the handle expired or
 * was already acked), not as a failure.
 */
import {
  type BatchAckMessageRequestBody,
  encodeBatchAckMessageRequestBody,
} from '../../../common/pop/batch-ack.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import type { HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { AckMessageRequestHeader } from '../../../remoting/protocol/headers/ack-message-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { requestWithHeader } from './support.js';

export type AckMessageHeader = HeaderInputOf<typeof AckMessageRequestHeader>;

/** Upstream AckStatus. */
export type AckStatus = 'OK' | 'NO_EXIST';

export function buildAckMessageRequest(header: AckMessageHeader): RemotingCommand {
  return requestWithHeader(RequestCode.ACK_MESSAGE, AckMessageRequestHeader, header);
}

export function buildBatchAckMessageRequest(body: BatchAckMessageRequestBody): RemotingCommand {
  return createRequest(RequestCode.BATCH_ACK_MESSAGE, { body: encodeBatchAckMessageRequestBody(body) });
}

export function parseAckMessageResponse(response: RemotingCommand): AckStatus {
  return response.code === ResponseCode.SUCCESS ? 'OK' : 'NO_EXIST';
}
