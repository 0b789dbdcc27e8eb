export { type Clock, systemClock, type TimerHandle } from '../common/clock.js';
export { KVConfigManager, NAMESPACE_ORDER_TOPIC_CONFIG } from './kvconfig/kv-config-manager.js';
export { type CreateNamesrvOptions, createNamesrv, NamesrvController } from './namesrv-controller.js';
export {
  DEFAULT_NAMESRV_SETTINGS,
  defaultKvConfigPath,
  type NamesrvSettings,
  namesrvSettings,
} from './namesrv-settings.js';
export type { NamesrvContext, NamesrvRequestHandler } from './processor/namesrv-context.js';
export {
  DefaultRequestProcessor,
  NAMESRV_REQUEST_HANDLERS,
  registerNamesrvProcessors,
} from './processor/processor-table.js';
export { UPDATABLE_NAMESRV_CONFIG } from './processor/update-namesrv-config.js';
export {
  type BrokerChannel,
  type BrokerLiveInfo,
  type BrokerRemovedReason,
  type RegisterBrokerParams,
  type RegisterBrokerResult,
  RouteInfoManager,
  type RouteInfoManagerEvents,
} from './routeinfo/route-info-manager.js';
