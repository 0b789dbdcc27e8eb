/**
 * What every request module shares: building a request from a typed header and turning a failure
 * answer into an MQBrokerError naming the peer and what the call was about.
 */

import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import {
  type AnyHeaderSchema,
  encodeHeader,
  type HeaderInputOf,
} from '../../../remoting/protocol/header-schema.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { type ErrorSubject, MQBrokerError } from '../../errors.js';

export function requestWithHeader<S extends AnyHeaderSchema>(
  code: number,
  schema: S,
  header: HeaderInputOf<S>,
  body?: Buffer,
): RemotingCommand {
  return createRequest(code, { extFields: encodeHeader(schema, header), body });
}

/** Throws MQBrokerError unless the answer is SUCCESS. */
export function expectSuccess(
  response: RemotingCommand,
  subject: ErrorSubject & { brokerAddr: string },
): void {
  if (response.code !== ResponseCode.SUCCESS)
    throw new MQBrokerError(response.code, response.remark, subject);
}
