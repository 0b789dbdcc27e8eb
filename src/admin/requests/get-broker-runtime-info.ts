/** GET_BROKER_RUNTIME_INFO (28): a broker's runtime figures (TPS, offsets, disk ratios...) as a KVTable. */
import { decodeKVTable } from '../../common/protocol/kv-table.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, type Peer, successBody } from './support.js';

export function buildGetBrokerRuntimeInfoRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_BROKER_RUNTIME_INFO);
}

export function parseGetBrokerRuntimeInfoResponse(
  response: RemotingCommand,
  peer: Peer,
): Map<string, string> {
  return decodeKVTable(successBody(response, peer, 'broker runtime info'));
}
