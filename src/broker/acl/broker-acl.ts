/**
 * Plain ACL on the broker (BrokerController.initialAcl): with aclEnable, one PlainPermissionManager
 * over `<rocketmqHome>/conf/plain_acl.yml` and `<rocketmqHome>/conf/acl/`, and its RPC hook on the
 * main and VIP servers. A file that does not load stops the broker from starting (upstream logs and
 * goes on in a state it does not define; refusing is the safe side).
 */
import { AclServerHook } from '../../common/acl/acl-server-hook.js';
import { DenialLog } from '../../common/acl/denial-log.js';
import type { Clock } from '../../common/clock.js';
import { RocketMQError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { aclPaths } from '../../common/platform/acl/acl-paths.js';
import { PlainPermissionManager } from '../../common/platform/acl/plain-permission-manager.js';
import { needAdminPerm } from '../../remoting/protocol/admin-request-codes.js';
import type { BrokerConfig } from '../broker-config.js';
import { brokerAccessResources } from './access-resources.js';
import type { StoredMessageLookup } from './stored-topics.js';

export class BrokerAcl {
  readonly manager: PlainPermissionManager;
  readonly hook: AclServerHook;
  private readonly logger: Logger;

  /** `store` is read for the topics of messages that requests name by commit-log offset. */
  constructor(config: BrokerConfig, clock: Clock, logger: Logger, store?: StoredMessageLookup) {
    this.logger = logger;
    this.manager = new PlainPermissionManager({
      paths: aclPaths(config.rocketmqHome, config.aclPlainFile),
      needAdminPerm,
      clock,
      logger,
      watchInterval: config.aclFileWatchInterval,
    });
    this.hook = new AclServerHook(
      this.manager,
      (request) => brokerAccessResources(request, store),
      new DenialLog({ clock, logger }),
    );
  }

  async start(): Promise<void> {
    try {
      await this.manager.start();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RocketMQError(
        `plain ACL could not load ${this.manager.paths.defaultAclFile} (or ${this.manager.paths.defaultAclDir ?? 'no ACL directory'}): ${reason}`,
        1,
        { cause: error },
      );
    }
    this.logger.info('plain ACL enabled', { file: this.manager.paths.defaultAclFile });
  }

  stop(): void {
    this.manager.stop();
  }
}
