import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  GetKVConfigRequestHeader,
  GetKVConfigResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_KV_CONFIG (101): the value in the response header, or QUERY_NOT_FOUND. */
export const getKVConfig: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(GetKVConfigRequestHeader, request.extFields);
  const value = ns.kvConfigManager.getKVConfig(header.namespace, header.key);
  if (value !== undefined) {
    return createResponse(request, ResponseCode.SUCCESS, {
      extFields: encodeHeader(GetKVConfigResponseHeader, { value }),
    });
  }
  return createResponse(request, ResponseCode.QUERY_NOT_FOUND, {
    remark: `No config item, Namespace: ${header.namespace} Key: ${header.key}`,
  });
};
