import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { DeleteKVConfigRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** DELETE_KV_CONFIG (102): SUCCESS whether or not the key existed. */
export const deleteKVConfig: NamesrvRequestHandler = async (ns, _ctx, request) => {
  const header = decodeHeader(DeleteKVConfigRequestHeader, request.extFields);
  await ns.kvConfigManager.deleteKVConfig(header.namespace, header.key);
  return createResponse(request, ResponseCode.SUCCESS);
};
