/** GET_KVLIST_BY_NAMESPACE (219): every key and value of one namespace on a name server. */
import { decodeKVTable } from '../../common/protocol/kv-table.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetKVListByNamespaceRequestHeader } from '../../remoting/protocol/headers/get-kv-list-by-namespace-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildGetKVListByNamespaceRequest(namespace: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_KVLIST_BY_NAMESPACE, GetKVListByNamespaceRequestHeader, {
    namespace,
  });
}

/** An unknown namespace is QUERY_NOT_FOUND from the name server, an MQBrokerError here. */
export function parseGetKVListByNamespaceResponse(
  response: RemotingCommand,
  peer: Peer,
): Map<string, string> {
  return decodeKVTable(successBody(response, peer, 'kv list'));
}
