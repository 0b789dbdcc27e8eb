/**
 * QUERY_ASSIGNMENT (400): a consumer that lets the broker rebalance (`clientRebalance: false`) asks
 * which queues of a topic are its and in which mode (PULL or POP).
 */
import {
  decodeQueryAssignmentResponseBody,
  encodeQueryAssignmentRequestBody,
  type MessageQueueAssignment,
  type QueryAssignmentRequestBody,
} from '../../../common/protocol/query-assignment-body.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess } from './support.js';

export function buildQueryAssignmentRequest(body: QueryAssignmentRequestBody): RemotingCommand {
  return createRequest(RequestCode.QUERY_ASSIGNMENT, { body: encodeQueryAssignmentRequestBody(body) });
}

/** The assignments; undefined (Java null) = no valid result, keep the current queues. */
export function parseQueryAssignmentResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
  topic: string,
): MessageQueueAssignment[] | undefined {
  expectSuccess(response, { brokerAddr, group, topic });
  return decodeQueryAssignmentResponseBody(response.body).messageQueueAssignments;
}
