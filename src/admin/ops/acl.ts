/** The admin's ACL calls (requests 50-53); the broker must run with aclEnable and the admin as an admin account. */

import type { CallOptions } from '../../client/instance/mq-client-api.js';
import type { PlainAccessConfig } from '../../common/acl/plain-access-config.js';
import { ValidationError } from '../../common/errors.js';
import { type AdminContext, nonEmpty } from '../admin-context.js';
import { buildDeleteAclConfigRequest, parseDeleteAclConfigResponse } from '../requests/delete-acl-config.js';
import {
  buildGetBrokerClusterAclInfoRequest,
  type ClusterAclVersionInfo,
  parseGetBrokerClusterAclInfoResponse,
} from '../requests/get-broker-cluster-acl-info.js';
import {
  buildUpdateAndCreateAclConfigRequest,
  parseUpdateAndCreateAclConfigResponse,
} from '../requests/update-and-create-acl-config.js';
import {
  buildUpdateGlobalWhiteAddrsConfigRequest,
  parseUpdateGlobalWhiteAddrsConfigResponse,
} from '../requests/update-global-white-addrs-config.js';

export function createAndUpdatePlainAccessConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  config: PlainAccessConfig & { accessKey: string },
): Promise<void> {
  nonEmpty('accessKey', config.accessKey);
  return ctx.onBroker(
    brokerAddr,
    buildUpdateAndCreateAclConfigRequest(config),
    parseUpdateAndCreateAclConfigResponse,
    call,
  );
}

export function deletePlainAccessConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  accessKey: string,
): Promise<void> {
  return ctx.onBroker(
    brokerAddr,
    buildDeleteAclConfigRequest(nonEmpty('accessKey', accessKey)),
    parseDeleteAclConfigResponse,
    call,
  );
}

export function updateGlobalWhiteAddrConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  globalWhiteAddrs: string,
  aclFileFullPath: string | undefined,
): Promise<void> {
  if (typeof globalWhiteAddrs !== 'string')
    throw new ValidationError('globalWhiteAddrs must be a string', -1);
  return ctx.onBroker(
    brokerAddr,
    buildUpdateGlobalWhiteAddrsConfigRequest(globalWhiteAddrs, aclFileFullPath),
    parseUpdateGlobalWhiteAddrsConfigResponse,
    call,
  );
}

export function examineBrokerClusterAclVersionInfo(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<ClusterAclVersionInfo> {
  return ctx.onBroker(
    brokerAddr,
    buildGetBrokerClusterAclInfoRequest(),
    (r, peer) => parseGetBrokerClusterAclInfoResponse(r, peer, ctx.now()),
    call,
  );
}
