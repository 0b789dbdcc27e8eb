import { MQVersion } from '../../common/constants.js';
import { RemotingCommandError } from '../../common/errors.js';
import { messageBodyCrc } from '../../common/message/crc32.js';
import {
  decodeRegisterBrokerBody,
  decodeTopicConfigSerializeWrapper,
  type TopicConfigSerializeWrapper,
} from '../../common/protocol/register-broker-body.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  RegisterBrokerRequestHeader,
  RegisterBrokerResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { NAMESPACE_ORDER_TOPIC_CONFIG } from '../kvconfig/kv-config-manager.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** The topic configs of a registration without a body: none, at version 0/0. */
function emptyWrapper(): TopicConfigSerializeWrapper {
  return { topicConfigTable: new Map(), dataVersion: { timestamp: 0n, counter: 0n } };
}

/** bodyCrc32 0 skips the check; an absent body has CRC 0, as UtilAll.crc32(null). */
function checksumMatches(request: RemotingCommand, bodyCrc32: number): boolean {
  if (bodyCrc32 === 0) return true;
  const crc = request.body === undefined ? 0 : messageBodyCrc(request.body);
  return crc === bodyCrc32;
}

/**
 * REGISTER_BROKER (103). Brokers from V3_0_11 on send a RegisterBrokerBody (JSON, or zlib-compressed
 * when `compressed`); older ones a bare TopicConfigSerializeWrapper and no filter servers. The answer
 * carries the master's addresses for a slave and the ORDER_TOPIC_CONFIG namespace as a KVTable body.
 */
export const registerBroker: NamesrvRequestHandler = (ns, ctx, request) => {
  const header = decodeHeader(RegisterBrokerRequestHeader, request.extFields);
  if (!checksumMatches(request, header.bodyCrc32)) {
    ns.logger.warn('registerBroker: crc32 not match', { remoteAddress: ctx.remoteAddress });
    return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'crc32 not match' });
  }
  const now = { timestamp: BigInt(ns.clock.now()) };
  let wrapper = emptyWrapper();
  let filterServerList: string[] | undefined;
  if (request.version >= MQVersion.V3_0_11) {
    filterServerList = [];
    if (request.body !== undefined) {
      try {
        const body = decodeRegisterBrokerBody(request.body, header.compressed, {
          ...now,
          maxInflatedSize: ns.settings.maxRegisterBodyInflatedSize,
        });
        wrapper = body.topicConfigSerializeWrapper;
        filterServerList = body.filterServerList;
      } catch (error) {
        const why = (error as Error).message;
        throw new RemotingCommandError('REGISTER_BROKER', `Failed to decode RegisterBrokerBody (${why})`, {
          cause: error,
        });
      }
    }
  } else if (request.body !== undefined) {
    wrapper = decodeTopicConfigSerializeWrapper(request.body, now);
  }
  const result = ns.routeInfoManager.registerBroker({
    clusterName: header.clusterName,
    brokerAddr: header.brokerAddr,
    brokerName: header.brokerName,
    brokerId: header.brokerId,
    haServerAddr: header.haServerAddr,
    topicConfigWrapper: wrapper,
    filterServerList,
    channel: ctx.connection,
  });
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(RegisterBrokerResponseHeader, {
      haServerAddr: result.haServerAddr,
      masterAddr: result.masterAddr,
    }),
    body: ns.kvConfigManager.getKVListByNamespace(NAMESPACE_ORDER_TOPIC_CONFIG),
  });
};
