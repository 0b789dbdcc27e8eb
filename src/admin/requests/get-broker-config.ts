/** GET_BROKER_CONFIG (26): every setting of a broker as properties text (the body). */
import { parseJavaProperties } from '../../common/java-properties.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

export function buildGetBrokerConfigRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_BROKER_CONFIG);
}

/** key -> value as MixAll.string2Properties reads the UTF-8 body; an empty body is no settings. */
export function parseGetBrokerConfigResponse(response: RemotingCommand, peer: Peer): Map<string, string> {
  expectSuccess(response, peer);
  return parseJavaProperties(response.body?.toString('utf8') ?? '');
}
