/** DELETE_ACL_CONFIG (51): a broker removes one account from its plain_acl.yml. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { DeleteAccessConfigRequestHeader } from '../../remoting/protocol/headers/acl-config-headers.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildDeleteAclConfigRequest(accessKey: string): RemotingCommand {
  return requestWithHeader(RequestCode.DELETE_ACL_CONFIG, DeleteAccessConfigRequestHeader, { accessKey });
}

export function parseDeleteAclConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
