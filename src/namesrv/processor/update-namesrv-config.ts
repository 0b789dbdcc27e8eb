import { parseJavaProperties } from '../../common/java-properties.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { parseJavaBoolean } from '../../remoting/protocol/header-schema.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvSettings } from '../namesrv-settings.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/**
 * The only settings a remote request may change, each with how its text applies (as Java's
 * properties2Object would parse it). Upstream refuses a black list (configStorePath, kvConfigPath,
 * ...) and accepts every other field of NamesrvConfig and NettyServerConfig; CVE-2023-33246 and
 * CVE-2023-37582 came from what that left open (rewriting config paths to plant files). An allowlist
 * cannot be outflanked by a key nobody thought of.
 */
export const UPDATABLE_NAMESRV_CONFIG: ReadonlyMap<string, (s: NamesrvSettings, value: string) => void> =
  new Map<string, (s: NamesrvSettings, value: string) => void>([
    [
      'orderMessageEnable',
      (s, value) => {
        s.orderMessageEnable = parseJavaBoolean(value);
      },
    ],
    [
      'productEnvName',
      (s, value) => {
        s.productEnvName = value;
      },
    ],
  ]);

/** Upstream's remark for a refused key; the keys refused are appended. */
export const CONFIG_BLACK_LIST_REMARK = 'Can not update config in black list.';

/**
 * UPDATE_NAMESRV_CONFIG (318): a properties body. Every key must be allowlisted or nothing changes
 * and the answer is NO_PERMISSION. Changes live in memory only (upstream also rewrites
 * configStorePath, which this name server does not have).
 */
export const updateNamesrvConfig: NamesrvRequestHandler = (ns, ctx, request) => {
  ns.logger.info('updateConfig called', { client: ctx.remoteAddress });
  if (request.body === undefined) return createResponse(request, ResponseCode.SUCCESS);
  let properties: Map<string, string>;
  try {
    // Properties.load(InputStream) reads ISO-8859-1.
    properties = parseJavaProperties(request.body.toString('latin1'));
  } catch {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'string2Properties error' });
  }
  const refused = [...properties.keys()].filter((k) => !UPDATABLE_NAMESRV_CONFIG.has(k));
  if (refused.length > 0) {
    ns.logger.warn('refused a remote config update', { client: ctx.remoteAddress, keys: refused.join(',') });
    return createResponse(request, ResponseCode.NO_PERMISSION, {
      remark: `${CONFIG_BLACK_LIST_REMARK} Not updatable remotely: ${refused.join(', ')}`,
    });
  }
  for (const [key, value] of properties) UPDATABLE_NAMESRV_CONFIG.get(key)?.(ns.settings, value);
  ns.logger.info('config updated', { keys: [...properties.keys()].join(',') });
  return createResponse(request, ResponseCode.SUCCESS);
};
