import { stringifyFastjson } from '../../common/fastjson/index.js';
import { dataVersionValue } from '../../common/protocol/data-version.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { encodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetBrokerConfigResponseHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * GET_BROKER_CONFIG (26): every setting as `key=value` lines (the body, UTF-8) and the configuration's
 * DataVersion JSON in the `version` header.
 */
export const getBrokerConfig: BrokerRequestHandler = (broker, _ctx, request) => {
  const configuration = broker.configuration;
  const content = configuration.getAllConfigsFormatString();
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(GetBrokerConfigResponseHeader, {
      version: stringifyFastjson(dataVersionValue(configuration.dataVersion)),
    }),
    body: content.length > 0 ? Buffer.from(content, 'utf8') : undefined,
  });
};
