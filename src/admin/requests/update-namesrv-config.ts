/** UPDATE_NAMESRV_CONFIG (318): settings to change on a name server, as properties text (the body). */
import { formatJavaProperties } from '../../common/java-properties.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

/** Undefined when there is nothing to send, as upstream sends nothing for empty properties. */
export function buildUpdateNamesrvConfigRequest(
  properties: Iterable<readonly [string, string]>,
): RemotingCommand | undefined {
  const text = formatJavaProperties(properties);
  return text.length === 0
    ? undefined
    : bareRequest(RequestCode.UPDATE_NAMESRV_CONFIG, Buffer.from(text, 'utf8'));
}

export function parseUpdateNamesrvConfigResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
