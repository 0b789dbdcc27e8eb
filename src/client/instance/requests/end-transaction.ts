/** END_TRANSACTION (37, oneway): commit or roll back a half message after the local transaction. */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import type { HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { EndTransactionRequestHeader } from '../../../remoting/protocol/headers/end-transaction-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { requestWithHeader } from './support.js';

export type EndTransactionHeader = HeaderInputOf<typeof EndTransactionRequestHeader>;

export function buildEndTransactionRequest(
  header: EndTransactionHeader,
  remark: string | undefined,
): RemotingCommand {
  const request = requestWithHeader(RequestCode.END_TRANSACTION, EndTransactionRequestHeader, header);
  if (remark !== undefined) request.remark = remark;
  return request;
}
