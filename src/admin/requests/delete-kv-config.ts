/** DELETE_KV_CONFIG (102): a name server forgets `namespace`/`key` (answers SUCCESS also when absent). */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { DeleteKVConfigRequestHeader } from '../../remoting/protocol/headers/delete-kv-config-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildDeleteKVConfigRequest(namespace: string, key: string): RemotingCommand {
  return requestWithHeader(RequestCode.DELETE_KV_CONFIG, DeleteKVConfigRequestHeader, { namespace, key });
}

export function parseDeleteKVConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
