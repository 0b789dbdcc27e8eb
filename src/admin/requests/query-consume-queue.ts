/**
 * QUERY_CONSUME_QUEUE (321): `count` consume-queue entries of one queue from `index`, with whether
 * each passes a group's filter (when a group is named).
 */
import {
  decodeQueryConsumeQueueResponseBody,
  type QueryConsumeQueueResponseBody,
} from '../../common/protocol/query-consume-queue-body.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { QueryConsumeQueueRequestHeader } from '../../remoting/protocol/headers/query-consume-queue-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export interface QueryConsumeQueueArgs {
  topic: string;
  queueId: number;
  index: bigint;
  count: number;
  consumerGroup?: string | undefined;
}

export function buildQueryConsumeQueueRequest(args: QueryConsumeQueueArgs): RemotingCommand {
  return requestWithHeader(RequestCode.QUERY_CONSUME_QUEUE, QueryConsumeQueueRequestHeader, {
    topic: args.topic,
    queueId: args.queueId,
    index: args.index,
    count: args.count,
    consumerGroup: args.consumerGroup,
  });
}

export function parseQueryConsumeQueueResponse(
  response: RemotingCommand,
  peer: Peer,
): QueryConsumeQueueResponseBody {
  return decodeQueryConsumeQueueResponseBody(successBody(response, peer, 'consume queue'));
}
