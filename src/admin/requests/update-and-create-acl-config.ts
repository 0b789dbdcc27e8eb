/**
 * UPDATE_AND_CREATE_ACL_CONFIG (50): a broker adds or replaces one account of its plain_acl.yml.
 * Topic and group permissions travel comma-joined, as upstream's UtilAll.join writes them.
 */
import type { PlainAccessConfig } from '../../common/acl/plain-access-config.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { CreateAccessConfigRequestHeader } from '../../remoting/protocol/headers/acl-config-headers.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

/** UtilAll.join: null for no list, else the items joined by `,`. */
function joined(list: readonly string[] | undefined): string | undefined {
  return list === undefined ? undefined : list.join(',');
}

export function buildUpdateAndCreateAclConfigRequest(
  config: PlainAccessConfig & { accessKey: string },
): RemotingCommand {
  return requestWithHeader(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, CreateAccessConfigRequestHeader, {
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    whiteRemoteAddress: config.whiteRemoteAddress,
    admin: config.admin ?? false,
    defaultTopicPerm: config.defaultTopicPerm,
    defaultGroupPerm: config.defaultGroupPerm,
    topicPerms: joined(config.topicPerms),
    groupPerms: joined(config.groupPerms),
  });
}

export function parseUpdateAndCreateAclConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
