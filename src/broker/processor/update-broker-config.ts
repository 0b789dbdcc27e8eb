import { parseJavaProperties } from '../../common/java-properties.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { PROTECTED_BROKER_CONFIG } from '../broker-configuration.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** Upstream's remark for a refused key; the keys refused are appended. */
export const CONFIG_BLACK_LIST_REMARK = 'Can not update config in black list.';

/** ms between two log lines about refused updates of one broker (a peer can send them at will). */
export const CONFIG_REFUSAL_LOG_INTERVAL_MS = 1000;
const refusalLogs = new WeakMap<object, LogRateLimiter>();

function refusalLogged(broker: Parameters<BrokerRequestHandler>[0], kind: string): number | undefined {
  let limiter = refusalLogs.get(broker);
  if (limiter === undefined) {
    limiter = new LogRateLimiter(CONFIG_REFUSAL_LOG_INTERVAL_MS, () => broker.clock.now());
    refusalLogs.set(broker, limiter);
  }
  return limiter.take(kind);
}

/** Remark of a protected key updated with ACL off; the keys and why follow. */
export const NEEDS_ACL_REMARK = 'Not updatable remotely without ACL (aclEnable=true and an admin account):';

/**
 * UPDATE_BROKER_CONFIG (25): a properties body. Every key must be in UPDATABLE_BROKER_CONFIG or
 * nothing changes and the answer is NO_PERMISSION naming the refused keys; so is a key of
 * PROTECTED_BROKER_CONFIG while ACL is off (with ACL on the hook already required an admin
 * account, since UPDATE_BROKER_CONFIG is an admin request); a value that does not
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
  const result = broker.configuration.update(properties, broker.config.aclEnable);
  if (!result.ok) {
    if ('needsAcl' in result) {
      const suppressedBefore = refusalLogged(broker, 'needsAcl');
      if (suppressedBefore !== undefined) {
        broker.logger.warn('refused a remote config update without ACL', {
          client: ctx.remoteAddress,
          keys: result.needsAcl.join(','),
          suppressedBefore,
        });
      }
      const why = result.needsAcl.map((k) => `${k} (${PROTECTED_BROKER_CONFIG.get(k)})`);
      return createResponse(request, ResponseCode.NO_PERMISSION, {
        remark: `${NEEDS_ACL_REMARK} ${why.join(', ')}; set it in broker.conf or turn ACL on`,
      });
    }
    if ('refused' in result) {
      const suppressedBefore = refusalLogged(broker, 'refused');
      if (suppressedBefore !== undefined) {
        broker.logger.warn('refused a remote config update', {
          client: ctx.remoteAddress,
          keys: result.refused.join(',').slice(0, 256),
          suppressedBefore,
        });
      }
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
