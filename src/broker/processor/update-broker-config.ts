import { parseJavaProperties } from '../../common/java-properties.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** Upstream's remark for a refused key; the keys refused are appended. */
export const CONFIG_BLACK_LIST_REMARK = 'Can not update config in black list.';

/**
 * UPDATE_BROKER_CONFIG (25): a properties body. Every key must be in UPDATABLE_BROKER_CONFIG or
 * nothing changes and the answer is NO_PERMISSION naming the refused keys; a value that does not
 * parse gives SYSTEM_ERROR naming it (upstream ignores it). A new brokerPermission bumps the topic
 * DataVersion and re-registers, as upstream.
 */
export const updateBrokerConfig: BrokerRequestHandler = async (broker, ctx, request) => {
  broker.logger.info('updateBrokerConfig called', { client: ctx.remoteAddress });
  if (request.body === undefined) return createResponse(request, ResponseCode.SUCCESS);
  let properties: Map<string, string>;
  try {
    // MixAll.string2Properties reads the UTF-8 text through a StringReader.
    properties = parseJavaProperties(request.body.toString('utf8'));
  } catch {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'string2Properties error' });
  }
  const result = broker.configuration.update(properties);
  if (!result.ok) {
    if ('refused' in result) {
      broker.logger.warn('refused a remote config update', {
        client: ctx.remoteAddress,
        keys: result.refused.join(','),
      });
      return createResponse(request, ResponseCode.NO_PERMISSION, {
        remark: `${CONFIG_BLACK_LIST_REMARK} Not updatable remotely: ${result.refused.join(', ')}`,
      });
    }
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `bad config value: ${result.invalid.join('; ')}`,
    });
  }
  broker.logger.info('broker config updated', { client: ctx.remoteAddress, keys: result.changed.join(',') });
  broker.onConfigUpdated(result.changed);
  if (result.changed.includes('brokerPermission')) {
    broker.topicConfigManager.nextDataVersion();
    await broker.registerBrokerAll(false, false, true);
  }
  return createResponse(request, ResponseCode.SUCCESS);
};
