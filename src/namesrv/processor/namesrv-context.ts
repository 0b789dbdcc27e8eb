/**
 * What every name server request handler works with, and the handler signature: one handler per request
 * code, each in its own file, all listed in processor-table.ts.
 */

import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { ProcessorContext, RemotingServerSettings } from '../../remoting/transport/index.js';
import type { KVConfigManager } from '../kvconfig/kv-config-manager.js';
import type { NamesrvSettings } from '../namesrv-settings.js';
import type { RouteInfoManager } from '../routeinfo/route-info-manager.js';

export interface NamesrvContext {
  readonly routeInfoManager: RouteInfoManager;
  readonly kvConfigManager: KVConfigManager;
  /** Live settings: UPDATE_NAMESRV_CONFIG changes the allowlisted ones in place. */
  readonly settings: NamesrvSettings;
  readonly remotingSettings: Readonly<RemotingServerSettings>;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Answers one request. Thrown errors become SYSTEM_ERROR (or a RocketMQError's own code) with the
 * error's message as remark, which is how a missing or malformed header field is answered.
 */
export type NamesrvRequestHandler = (
  ns: NamesrvContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
) => RemotingCommand | Promise<RemotingCommand>;
