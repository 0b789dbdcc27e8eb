/** GET_BROKER_CLUSTER_INFO (106): every broker a name server knows, by name and by cluster. */
import { type ClusterInfo, decodeClusterInfo } from '../../common/protocol/route.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, type Peer, successBody } from './support.js';

export function buildGetBrokerClusterInfoRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_BROKER_CLUSTER_INFO);
}

export function parseGetBrokerClusterInfoResponse(response: RemotingCommand, peer: Peer): ClusterInfo {
  return decodeClusterInfo(successBody(response, peer, 'cluster info'));
}
