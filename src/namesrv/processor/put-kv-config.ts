import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { PutKVConfigRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** PUT_KV_CONFIG (100): answered once the KV file is written (or its write failed and was logged). */
export const putKVConfig: NamesrvRequestHandler = async (ns, _ctx, request) => {
  const header = decodeHeader(PutKVConfigRequestHeader, request.extFields);
  await ns.kvConfigManager.putKVConfig(header.namespace, header.key, header.value);
  return createResponse(request, ResponseCode.SUCCESS);
};
