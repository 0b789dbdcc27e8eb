import { decodeDataVersion, encodeDataVersion } from '../../common/protocol/data-version.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  QueryDataVersionRequestHeader,
  QueryDataVersionResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/**
 * QUERY_DATA_VERSION (322): a broker with forceRegister=false asks whether its topic configs changed;
 * an unchanged answer also counts as a sign of life. The body is the version we hold, if any.
 */
export const queryDataVersion: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(QueryDataVersionRequestHeader, request.extFields);
  const now = ns.clock.now();
  const dataVersion = decodeDataVersion(request.body, { timestamp: BigInt(now) });
  const rim = ns.routeInfoManager;
  const changed = rim.isBrokerTopicConfigChanged(header.brokerAddr, dataVersion);
  if (!changed) rim.updateBrokerInfoUpdateTimestamp(header.brokerAddr, now);
  const ours = rim.queryBrokerTopicConfig(header.brokerAddr);
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(QueryDataVersionResponseHeader, { changed }),
    body: ours === undefined ? undefined : encodeDataVersion(ours),
  });
};
