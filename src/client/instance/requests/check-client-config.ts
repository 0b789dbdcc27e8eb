/**
 * CHECK_CLIENT_CONFIG (46): a consumer with a non-TAG subscription (SQL92) asks a broker of the
 * topic whether it can filter that way before it starts; the broker answers with the parse error.
 */

import { encodeCheckClientRequestBody } from '../../../common/protocol/check-client-request-body.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess } from './support.js';

export function buildCheckClientConfigRequest(
  clientId: string,
  group: string,
  subscription: SubscriptionData,
): RemotingCommand {
  return createRequest(RequestCode.CHECK_CLIENT_CONFIG, {
    body: encodeCheckClientRequestBody({ clientId, group, subscriptionData: subscription }),
  });
}

export function parseCheckClientConfigResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
  topic: string,
): void {
  expectSuccess(response, { brokerAddr, group, topic });
}
