/** PUT_KV_CONFIG (100): a name server stores `value` under `namespace`/`key`. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { PutKVConfigRequestHeader } from '../../remoting/protocol/headers/put-kv-config-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildPutKVConfigRequest(namespace: string, key: string, value: string): RemotingCommand {
  return requestWithHeader(RequestCode.PUT_KV_CONFIG, PutKVConfigRequestHeader, { namespace, key, value });
}

export function parsePutKVConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
