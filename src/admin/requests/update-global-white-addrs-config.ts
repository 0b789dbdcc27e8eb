/** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53): a broker replaces the global white list of an ACL file. */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { UpdateGlobalWhiteAddrsConfigRequestHeader } from '../../remoting/protocol/headers/acl-config-headers.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

/**
 * `aclFileFullPath` names the file; empty means the broker's default file. (Upstream's header field is
 * required, and its broker reads null and empty alike.)
 */
export function buildUpdateGlobalWhiteAddrsConfigRequest(
  globalWhiteAddrs: string,
  aclFileFullPath: string | undefined,
): RemotingCommand {
  return requestWithHeader(
    RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
    UpdateGlobalWhiteAddrsConfigRequestHeader,
    { globalWhiteAddrs, aclFileFullPath: aclFileFullPath ?? '' },
  );
}

export function parseUpdateGlobalWhiteAddrsConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
