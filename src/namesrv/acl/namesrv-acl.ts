/**
 * Plain ACL on the name server (aclEnable; upstream's name server has none): the broker's file
 * format and location, checked only for the admin requests of admin-request-codes.ts (the writes:
 * broker registration, KV config, permissions, topic deletes, config), which need a valid signature
 * from an `admin: true` account or a whitelisted address. Reads (routes, cluster info, KV reads)
 * stay open so that unsigned clients keep working.
 */

import type { AccessRequestSource } from '../../common/acl/access-request.js';
import { AclServerHook } from '../../common/acl/acl-server-hook.js';
import { DenialLog } from '../../common/acl/denial-log.js';
import type { Clock } from '../../common/clock.js';
import { RocketMQError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { aclPaths } from '../../common/platform/acl/acl-paths.js';
import { PlainPermissionManager } from '../../common/platform/acl/plain-permission-manager.js';
import { needAdminPerm } from '../../remoting/protocol/admin-request-codes.js';
import type { NamesrvSettings } from '../namesrv-settings.js';

export class NamesrvAcl {
  readonly manager: PlainPermissionManager;
  private readonly checker: AclServerHook;

  constructor(settings: NamesrvSettings, clock: Clock, logger: Logger) {
    this.manager = new PlainPermissionManager({
      paths: aclPaths(settings.rocketmqHome, settings.aclPlainFile),
      needAdminPerm,
      clock,
      logger,
      watchInterval: settings.aclFileWatchInterval,
    });
    // The name server's requests name no topic or group permission: signature and admin only.
    this.checker = new AclServerHook(this.manager, () => undefined, new DenialLog({ clock, logger }));
  }

  async start(): Promise<void> {
    try {
      await this.manager.start();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RocketMQError(
        `name server plain ACL could not load ${this.manager.paths.defaultAclFile}: ${reason}`,
        1,
        {
          cause: error,
        },
      );
    }
  }

  stop(): void {
    this.manager.stop();
  }

  /** The RPC hook: only admin requests are checked. */
  readonly hook = {
    doBeforeRequest: (remoteAddr: string, request: AccessRequestSource): void => {
      if (needAdminPerm(request.code)) this.checker.doBeforeRequest(remoteAddr, request);
    },
    doAfterResponse: (): void => {},
  };
}
