/** CLEAN_EXPIRED_CONSUMEQUEUE (306): a broker drops consume queues of topics it no longer has. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

export function buildCleanExpiredConsumeQueueRequest(): RemotingCommand {
  return bareRequest(RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE);
}

export function parseCleanExpiredConsumeQueueResponse(response: RemotingCommand, peer: Peer): boolean {
  expectSuccess(response, peer);
  return true;
}
