/**
 * The ACL admin requests of upstream's AdminBrokerProcessor: UPDATE_AND_CREATE_ACL_CONFIG (50),
 * DELETE_ACL_CONFIG (51), GET_BROKER_CLUSTER_ACL_INFO (52), UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53).
 * Served whatever aclEnable says, as upstream; without ACL they fail as upstream's do (its validator
 * is missing): 209/210/211 without remark, and no answer at all to 52. Who may call them is the ACL
 * hook's business (admin accounts only, see admin-request-codes.ts).
 */

import type { AclFileDataVersion } from '../../common/acl/plain-acl-yaml.js';
import { stringifyFastjson } from '../../common/fastjson/index.js';
import { dataVersionValue } from '../../common/protocol/data-version.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  CreateAccessConfigRequestHeader,
  DeleteAccessConfigRequestHeader,
  GetBrokerAclConfigResponseHeader,
  UpdateGlobalWhiteAddrsConfigRequestHeader,
} from '../../remoting/protocol/headers/acl-config-headers.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext, RequestProcessor } from '../../remoting/transport/index.js';
import type { BrokerContext } from '../processor/broker-context.js';
import type { BrokerAcl } from './broker-acl.js';

/** UtilAll.split: null stays null; otherwise Java's String.split (trailing empty strings dropped). */
function javaSplit(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

function versionJson(v: AclFileDataVersion): string {
  return stringifyFastjson(dataVersionValue({ counter: BigInt(v.counter), timestamp: BigInt(v.timestamp) }));
}

function failure(request: RemotingCommand, code: number, remark: string | undefined): RemotingCommand {
  return createResponse(request, code, remark === undefined ? {} : { remark });
}

function messageOf(error: unknown): string | undefined {
  return error instanceof Error ? error.message : undefined;
}

export const ACL_ADMIN_CODES: readonly number[] = [
  RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
  RequestCode.DELETE_ACL_CONFIG,
  RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
  RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
];

export class AclAdminProcessor implements RequestProcessor {
  constructor(
    private readonly broker: BrokerContext,
    private readonly acl: BrokerAcl | undefined,
  ) {}

  rejectRequest(): boolean {
    return false;
  }

  async processRequest(
    ctx: ProcessorContext,
    request: RemotingCommand,
  ): Promise<RemotingCommand | undefined> {
    switch (request.code) {
      case RequestCode.UPDATE_AND_CREATE_ACL_CONFIG:
        return this.update(ctx, request);
      case RequestCode.DELETE_ACL_CONFIG:
        return this.delete(ctx, request);
      case RequestCode.GET_BROKER_CLUSTER_ACL_INFO:
        return this.info(request);
      default:
        return this.updateGlobalWhiteAddrs(ctx, request);
    }
  }

  private async update(ctx: ProcessorContext, request: RemotingCommand): Promise<RemotingCommand> {
    const h = decodeHeader(CreateAccessConfigRequestHeader, request.extFields);
    const log = this.broker.logger;
    try {
      if (this.acl === undefined)
        return failure(request, ResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED, undefined);
      await this.acl.manager.updateAccessConfig({
        accessKey: h.accessKey,
        secretKey: h.secretKey,
        whiteRemoteAddress: h.whiteRemoteAddress,
        admin: h.admin,
        defaultTopicPerm: h.defaultTopicPerm,
        defaultGroupPerm: h.defaultGroupPerm,
        topicPerms: javaSplit(h.topicPerms),
        groupPerms: javaSplit(h.groupPerms),
      });
      log.info('ACL account updated', { accessKey: h.accessKey, client: ctx.remoteAddress });
      return createResponse(request, ResponseCode.SUCCESS);
    } catch (error) {
      log.warn('ACL account update failed', { accessKey: h.accessKey, error: messageOf(error) });
      return failure(request, ResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED, messageOf(error));
    }
  }

  private async delete(ctx: ProcessorContext, request: RemotingCommand): Promise<RemotingCommand> {
    const h = decodeHeader(DeleteAccessConfigRequestHeader, request.extFields);
    const log = this.broker.logger;
    log.info('DeleteAccessConfig called', { client: ctx.remoteAddress });
    try {
      if (this.acl === undefined) return failure(request, ResponseCode.DELETE_ACL_CONFIG_FAILED, undefined);
      if (await this.acl.manager.deleteAccessConfig(h.accessKey))
        return createResponse(request, ResponseCode.SUCCESS);
      const remark = `The accesskey[${h.accessKey}] corresponding to accessConfig has been deleted failed.`;
      log.warn(remark);
      return failure(request, ResponseCode.DELETE_ACL_CONFIG_FAILED, remark);
    } catch (error) {
      log.warn('ACL account delete failed', { accessKey: h.accessKey, error: messageOf(error) });
      return failure(request, ResponseCode.DELETE_ACL_CONFIG_FAILED, messageOf(error));
    }
  }

  private info(request: RemotingCommand): RemotingCommand | undefined {
    // Upstream's handler fails without a validator and answers nothing.
    if (this.acl === undefined) return undefined;
    const manager = this.acl.manager;
    const all: Record<string, unknown> = {};
    for (const [file, v] of manager.allFileVersions()) {
      all[file] = dataVersionValue({ counter: BigInt(v.counter), timestamp: BigInt(v.timestamp) });
    }
    return createResponse(request, ResponseCode.SUCCESS, {
      extFields: encodeHeader(GetBrokerAclConfigResponseHeader, {
        version: versionJson(manager.defaultFileVersion()),
        allAclFileVersion: stringifyFastjson(all as Parameters<typeof stringifyFastjson>[0]),
        brokerName: this.broker.config.brokerName,
        brokerAddr: this.broker.brokerAddr,
        clusterName: this.broker.config.brokerClusterName,
      }),
    });
  }

  private async updateGlobalWhiteAddrs(
    ctx: ProcessorContext,
    request: RemotingCommand,
  ): Promise<RemotingCommand> {
    const h = decodeHeader(UpdateGlobalWhiteAddrsConfigRequestHeader, request.extFields);
    const log = this.broker.logger;
    try {
      if (this.acl === undefined) {
        return failure(request, ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, undefined);
      }
      const addrs = javaSplit(h.globalWhiteAddrs) ?? [];
      if (await this.acl.manager.updateGlobalWhiteAddrsConfig(addrs, h.aclFileFullPath)) {
        log.info('ACL global white addresses updated', { client: ctx.remoteAddress });
        return createResponse(request, ResponseCode.SUCCESS);
      }
      const remark = `The globalWhiteAddresses[${h.globalWhiteAddrs}] has been updated failed.`;
      log.warn(remark);
      return failure(request, ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, remark);
    } catch (error) {
      log.warn('ACL global white address update failed', { error: messageOf(error) });
      return failure(request, ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, messageOf(error));
    }
  }
}
