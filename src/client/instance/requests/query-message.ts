/**
 * QUERY_MESSAGE (12): messages of a topic by key (or by UNIQ_KEY with `_UNIQUE_KEY_QUERY=true`) in
 * a store-time range, from the broker's index. The answer may hold hash collisions; the caller
 * filters them.
 */
import { MixAll } from '../../../common/constants.js';
import type { MessageExt } from '../../../common/message/message.js';
import { decodeMessages } from '../../../common/message/stored-format.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader } from '../../../remoting/protocol/header-schema.js';
import { QueryMessageRequestHeader } from '../../../remoting/protocol/headers/query-message-request-header.js';
import { QueryMessageResponseHeader } from '../../../remoting/protocol/headers/query-message-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export interface QueryMessageArgs {
  topic: string;
  key: string;
  maxNum: number;
  beginTimestamp: bigint;
  endTimestamp: bigint;
  isUniqKey: boolean;
}

export interface BrokerQueryAnswer {
  indexLastUpdateTimestamp: bigint;
  messages: MessageExt[];
}

export function buildQueryMessageRequest(args: QueryMessageArgs): RemotingCommand {
  const request = requestWithHeader(RequestCode.QUERY_MESSAGE, QueryMessageRequestHeader, {
    topic: args.topic,
    key: args.key,
    maxNum: args.maxNum,
    beginTimestamp: args.beginTimestamp,
    endTimestamp: args.endTimestamp,
  });
  (request.extFields as Record<string, string>)[MixAll.UNIQUE_MSG_QUERY_FLAG] = String(args.isUniqKey);
  return request;
}

export function parseQueryMessageResponse(
  response: RemotingCommand,
  brokerAddr: string,
  topic: string,
): BrokerQueryAnswer {
  expectSuccess(response, { brokerAddr, topic });
  const header = decodeHeader(QueryMessageResponseHeader, response.extFields);
  return {
    indexLastUpdateTimestamp: header.indexLastUpdateTimestamp,
    messages: response.body === undefined ? [] : decodeMessages(response.body, { copyBody: true }),
  };
}
