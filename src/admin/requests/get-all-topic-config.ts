/** GET_ALL_TOPIC_CONFIG (21): every topic config of one broker and their data version. */
import {
  decodeTopicConfigSerializeWrapper,
  type TopicConfigSerializeWrapper,
} from '../../common/protocol/register-broker-body.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, type Peer, successBody } from './support.js';

export function buildGetAllTopicConfigRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_ALL_TOPIC_CONFIG);
}

/** `now` stands in for a data version without a timestamp, as Java's field initialiser would. */
export function parseGetAllTopicConfigResponse(
  response: RemotingCommand,
  peer: Peer,
  now: bigint,
): TopicConfigSerializeWrapper {
  return decodeTopicConfigSerializeWrapper(successBody(response, peer, 'topic configs'), { timestamp: now });
}
