import { formatJavaProperties } from '../../common/java-properties.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvContext, NamesrvRequestHandler } from './namesrv-context.js';

/** Upstream's NamesrvConfig and NettyServerConfig keys we have, then our named intervals. */
function configEntries(ns: NamesrvContext): Array<[string, string]> {
  const s = ns.settings;
  const entries: Array<[string, string | number | boolean]> = [
    ['brokerChannelExpiredTime', s.brokerChannelExpiredTime],
    ['clusterTest', false],
    ['kvConfigPath', s.kvConfigPath],
    ['listenPort', s.listenPort],
    ['orderMessageEnable', s.orderMessageEnable],
    ['productEnvName', s.productEnvName],
    ['scanNotActiveBrokerDelay', s.scanNotActiveBrokerDelay],
    ['scanNotActiveBrokerInterval', s.scanNotActiveBrokerInterval],
    ['serverChannelMaxIdleTimeSeconds', ns.remotingSettings.serverChannelMaxIdleTimeSeconds],
    ['serverSocketBacklog', ns.remotingSettings.serverSocketBacklog],
  ];
  return entries.map(([k, v]) => [k, String(v)]);
}

/** GET_NAMESRV_CONFIG (319): the settings as `key=value` lines (MixAll.properties2String). */
export const getNamesrvConfig: NamesrvRequestHandler = (ns, _ctx, request) =>
  createResponse(request, ResponseCode.SUCCESS, {
    body: Buffer.from(formatJavaProperties(configEntries(ns)), 'utf8'),
  });
