/**
 * What one request asks for (upstream PlainAccessResource, request side): who signs it, which
 * resources it needs with which permission, and what the signature covers. Built by the broker or
 * name server from the command; the resources per request code are the server's business.
 */
import { ACCESS_KEY, SECURITY_TOKEN, SIGNATURE } from './acl-signer.js';
import { whiteRemoteAddressOf } from './inet-address.js';

export interface AccessRequest {
  readonly code: number;
  /** The peer's host, port removed: what whitelists match. */
  readonly whiteRemoteAddress: string;
  readonly accessKey: string | undefined;
  readonly signature: string | undefined;
  /** Recorded, never checked (as upstream). */
  readonly securityToken: string | undefined;
  /** Resource (topic, or group as its retry topic) to the permission it needs; undefined when none. */
  readonly resources: ReadonlyMap<string, number> | undefined;
  readonly extFields: Readonly<Record<string, string>> | undefined;
  readonly body: Buffer | undefined;
  /** The sender's MQVersion ordinal (the command's `version`): picks what the signature covers. */
  readonly version: number | undefined;
}

export interface AccessRequestSource {
  readonly code: number;
  readonly version?: number | undefined;
  readonly extFields?: Readonly<Record<string, string>> | undefined;
  readonly body?: Buffer | undefined;
}

export function accessRequestOf(
  request: AccessRequestSource,
  remoteAddr: string,
  resources: ReadonlyMap<string, number> | undefined,
): AccessRequest {
  const ext = request.extFields;
  return {
    code: request.code,
    whiteRemoteAddress: whiteRemoteAddressOf(remoteAddr),
    accessKey: ext?.[ACCESS_KEY],
    signature: ext?.[SIGNATURE],
    securityToken: ext?.[SECURITY_TOKEN],
    resources: resources !== undefined && resources.size > 0 ? resources : undefined,
    extFields: ext,
    body: request.body,
    version: request.version,
  };
}

/** An accessKey echoed in a remark or log line is cut here, so a huge one is not sent back. */
export const MAX_ECHOED_ACCESS_KEY_LENGTH = 128;

export function echoAccessKey(accessKey: string): string {
  return accessKey.length > MAX_ECHOED_ACCESS_KEY_LENGTH
    ? `${accessKey.slice(0, MAX_ECHOED_ACCESS_KEY_LENGTH)}...`
    : accessKey;
}
