/**
 * GET_BROKER_CLUSTER_ACL_INFO (52): which ACL data versions a broker runs, in the answer's header:
 * the default file's DataVersion JSON and a JSON object of every file's.
 */
import { BodyReader } from '../../common/protocol/body-reader.js';
import { type DataVersion, readDataVersion } from '../../common/protocol/data-version.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { GetBrokerAclConfigResponseHeader } from '../../remoting/protocol/headers/acl-config-headers.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { bareRequest, expectSuccess, type Peer } from './support.js';

/** Upstream ClusterAclVersionInfo. */
export interface ClusterAclVersionInfo {
  brokerName: string;
  brokerAddr: string;
  clusterName: string;
  aclConfigDataVersion: DataVersion;
  /** ACL file path -> its data version. */
  allAclConfigDataVersion: Map<string, DataVersion>;
}

export function buildGetBrokerClusterAclInfoRequest(): RemotingCommand {
  return bareRequest(RequestCode.GET_BROKER_CLUSTER_ACL_INFO);
}

/** `now` stands in for a version without a timestamp, as Java's field initialiser would. */
export function parseGetBrokerClusterAclInfoResponse(
  response: RemotingCommand,
  peer: Peer,
  now: bigint,
): ClusterAclVersionInfo {
  expectSuccess(response, peer);
  const header = decodeHeader(GetBrokerAclConfigResponseHeader, response.extFields);
  const defaults = { timestamp: now };
  const version = readDataVersion(
    BodyReader.parse('GetBrokerAclConfigResponseHeader.version', Buffer.from(header.version, 'utf8')),
    defaults,
  );
  const all = new Map<string, DataVersion>();
  const text = header.allAclFileVersion;
  if (text !== undefined && text.length > 0) {
    const r = BodyReader.parse(
      'GetBrokerAclConfigResponseHeader.allAclFileVersion',
      Buffer.from(text, 'utf8'),
    );
    for (const [path, v] of r.entries()) all.set(path, readDataVersion(v, defaults));
  }
  return {
    brokerName: header.brokerName,
    brokerAddr: header.brokerAddr,
    clusterName: header.clusterName,
    aclConfigDataVersion: version,
    allAclConfigDataVersion: all,
  };
}
