import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetKVListByNamespaceRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { NamesrvRequestHandler } from './namesrv-context.js';

/** GET_KVLIST_BY_NAMESPACE (219): a KVTable body, or QUERY_NOT_FOUND for a namespace never created. */
export const getKVListByNamespace: NamesrvRequestHandler = (ns, _ctx, request) => {
  const header = decodeHeader(GetKVListByNamespaceRequestHeader, request.extFields);
  const body = ns.kvConfigManager.getKVListByNamespace(header.namespace);
  if (body !== undefined) return createResponse(request, ResponseCode.SUCCESS, { body });
  return createResponse(request, ResponseCode.QUERY_NOT_FOUND, {
    remark: `No config item, Namespace: ${header.namespace}`,
  });
};
