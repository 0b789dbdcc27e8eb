/** UPDATE_BROKER_CONFIG (25): settings to change on a broker, as properties text (the body). */
import { formatJavaProperties } from '../../common/java-properties.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

/** Undefined when there is nothing to send: upstream sends no request for empty properties. */
export function buildUpdateBrokerConfigRequest(
  properties: Iterable<readonly [string, string]>,
): RemotingCommand | undefined {
  const text = formatJavaProperties(properties);
  return text.length === 0
    ? undefined
    : bareRequest(RequestCode.UPDATE_BROKER_CONFIG, Buffer.from(text, 'utf8'));
}

/** A key the broker does not let a client change is NO_PERMISSION, an MQBrokerError naming the broker. */
export function parseUpdateBrokerConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
