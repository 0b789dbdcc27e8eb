/** GET_KV_CONFIG (101): one value a name server stores; QUERY_NOT_FOUND when there is none. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetKVConfigRequestHeader } from '../../remoting/protocol/headers/get-kv-config-request-header.js';
import { GetKVConfigResponseHeader } from '../../remoting/protocol/headers/get-kv-config-response-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildGetKVConfigRequest(namespace: string, key: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_KV_CONFIG, GetKVConfigRequestHeader, { namespace, key });
}

export function parseGetKVConfigResponse(response: RemotingCommand, peer: Peer): string | undefined {
  expectSuccess(response, peer);
  return decodeHeader(GetKVConfigResponseHeader, response.extFields).value;
}
