/** GET_NAMESRV_CONFIG (319): a name server's settings as properties text (the body). */
import { parseJavaProperties } from '../../common/java-properties.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

export function buildGetNamesrvConfigRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_NAMESRV_CONFIG);
}

export function parseGetNamesrvConfigResponse(response: RemotingCommand, peer: Peer): Map<string, string> {
  expectSuccess(response, peer);
  return parseJavaProperties(response.body?.toString('utf8') ?? '');
}
