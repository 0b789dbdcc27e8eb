/**
 * What the admin's request modules share beyond the client's (`requestWithHeader`, `expectSuccess`):
 * requests without a header and answers whose body must be there.
 */

import { type ErrorSubject, MQBrokerError } from '../../client/errors.js';
import { expectSuccess } from '../../client/instance/requests/support.js';
import { createRequest, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';

export { expectSuccess, requestWithHeader } from '../../client/instance/requests/support.js';

/** Who answered: a broker's or name server's address and what the call was about. */
export type Peer = ErrorSubject & { brokerAddr: string };

export function bareRequest(code: number, body?: Buffer): RemotingCommand {
  return createRequest(code, { body });
}

/**
 * The body of a SUCCESS answer; an answer without one is a SYSTEM_ERROR naming `what`, as upstream's
 * decoders would fail on it.
 */
export function successBody(response: RemotingCommand, peer: Peer, what: string): Buffer {
  expectSuccess(response, peer);
  if (response.body === undefined || response.body.length === 0) {
    throw new MQBrokerError(ResponseCode.SYSTEM_ERROR, `${what} answer without a body`, peer);
  }
  return response.body;
}
