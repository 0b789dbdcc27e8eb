/** CLEAN_UNUSED_TOPIC (316): a broker removes the store's queues of topics without a config. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

export function buildCleanUnusedTopicRequest(): RemotingCommand {
  return bareRequest(RequestCode.CLEAN_UNUSED_TOPIC);
}

export function parseCleanUnusedTopicResponse(response: RemotingCommand, peer: Peer): boolean {
  expectSuccess(response, peer);
  return true;
}
