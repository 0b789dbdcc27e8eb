/**
 * AdminBrokerProcessor.callConsumer: hands an admin's request to one consumer of a group over that
 * consumer's own connection and answers with the consumer's response as it came (body untouched).
 */
import { MQVersion, mqVersionName } from '../../common/constants.js';
import { createRequest, createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { RemotingTimeoutError } from '../../remoting/transport/errors.js';
import { CALL_CLIENT_TIMEOUT_MS, callClient } from '../client/broker2client.js';
import type { BrokerContext } from './broker-context.js';

/**
 * SYSTEM_ERROR when the client is not a member of the group or is older than V3_1_8_SNAPSHOT;
 * CONSUME_MSG_TIMEOUT when it does not answer within `timeoutMs` (upstream 10 s); SYSTEM_ERROR when
 * the call fails otherwise (connection closed). Remarks are upstream's.
 */
export async function callConsumer(
  broker: BrokerContext,
  requestCode: number,
  request: RemotingCommand,
  consumerGroup: string,
  clientId: string | undefined,
  timeoutMs = CALL_CLIENT_TIMEOUT_MS,
): Promise<RemotingCommand> {
  // Java formats a null clientId as "null".
  const client = clientId ?? 'null';
  const info =
    clientId === undefined ? undefined : broker.consumerManager.findChannel(consumerGroup, clientId);
  if (info === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `The Consumer <${consumerGroup}> <${client}> not online`,
    });
  }
  if (info.version < MQVersion.V3_1_8_SNAPSHOT) {
    const version = mqVersionName(info.version) ?? String(info.version);
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `The Consumer <${client}> Version <${version}> too low to finish, please upgrade it to V3_1_8_SNAPSHOT`,
    });
  }
  const forwarded = createRequest(requestCode, { extFields: request.extFields, body: request.body });
  try {
    return await callClient(info.channel, forwarded, timeoutMs);
  } catch (error) {
    const desc = String(error);
    if (error instanceof RemotingTimeoutError) {
      return createResponse(request, ResponseCode.CONSUME_MSG_TIMEOUT, {
        remark: `consumer <${consumerGroup}> <${client}> Timeout: ${desc}`,
      });
    }
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `invoke consumer <${consumerGroup}> <${client}> Exception: ${desc}`,
    });
  }
}
