/**
 * AclClientRPCHook: signs every request a client sends (brokers and name servers alike) as upstream's
 * hook does, so a server with plain ACL on accepts it. Nothing is added to responses. Here rather than
 * in the client because the broker signs its own name-server requests with it too.
 */
import {
  ACCESS_KEY,
  CLIENT_UNSIGNED_FIELDS,
  calRequestSignature,
  SECURITY_TOKEN,
  SERVER_UNSIGNED_FIELDS,
  SIGNATURE,
} from '../../common/acl/acl-signer.js';
import { MixAll, MQVersion } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import type { RemotingCommand } from '../protocol/command.js';
import { RequestCode } from '../protocol/request-code.js';

import type { RPCHook } from './processor.js';

/** An ACL account (upstream SessionCredentials); the secret never leaves this process. */
export interface SessionCredentials {
  accessKey: string;
  secretKey: string;
  /** Sent as `SecurityToken` and signed; upstream's brokers do not check it. */
  securityToken?: string | undefined;
}

/** Checks the shape, so a typo fails when the client is created rather than as a broker denial. */
export function validateCredentials(value: unknown): SessionCredentials {
  if (typeof value !== 'object' || value === null) {
    throw new ValidationError('credentials must be an object { accessKey, secretKey, securityToken? }', -1);
  }
  const { accessKey, secretKey, securityToken } = value as Record<string, unknown>;
  for (const [name, field] of [
    ['accessKey', accessKey],
    ['secretKey', secretKey],
  ] as const) {
    if (typeof field !== 'string' || field.length === 0) {
      throw new ValidationError(`credentials.${name} must be a non-empty string`, -1);
    }
  }
  if (securityToken !== undefined && typeof securityToken !== 'string') {
    throw new ValidationError('credentials.securityToken must be a string', -1);
  }
  return {
    accessKey: accessKey as string,
    secretKey: secretKey as string,
    securityToken: securityToken as string | undefined,
  };
}

export class AclClientRPCHook implements RPCHook {
  private readonly credentials: SessionCredentials;
  /** The secret's UTF-8 bytes, encoded once rather than per request. */
  private readonly secretKey: Buffer;

  constructor(credentials: SessionCredentials) {
    this.credentials = validateCredentials(credentials);
    this.secretKey = Buffer.from(this.credentials.secretKey, 'utf8');
  }

  get accessKey(): string {
    return this.credentials.accessKey;
  }

  /** True when `other` would sign exactly as this hook does. */
  sameCredentials(other: SessionCredentials): boolean {
    const mine = this.credentials;
    return (
      mine.accessKey === other.accessKey &&
      mine.secretKey === other.secretKey &&
      mine.securityToken === other.securityToken
    );
  }

  doBeforeRequest(_remoteAddr: string, request: RemotingCommand): void {
    // A copy: callers may reuse one header object across requests (retries, templates).
    const fields: Record<string, string> = { ...request.extFields };
    request.extFields = fields;
    fields[ACCESS_KEY] = this.credentials.accessKey;
    if (this.credentials.securityToken !== undefined) {
      fields[SECURITY_TOKEN] = this.credentials.securityToken;
    }
    // A request re-sent after a failure carries the old signature: it is not part of what is signed.
    let unsigned = CLIENT_UNSIGNED_FIELDS;
    if (request.code === RequestCode.QUERY_MESSAGE && fields[MixAll.UNIQUE_MSG_QUERY_FLAG] !== undefined) {
      // 4.9.x brokers never verify `_UNIQUE_KEY_QUERY` (so upstream's client, which signs it, cannot
      // query by key with ACL on); 5.x brokers verify it unless the request says 4.9.3 or older.
      // Leaving it out and saying 4.9.3 passes both.
      unsigned = SERVER_UNSIGNED_FIELDS;
      request.version = Math.min(request.version, MQVersion.V4_9_3);
    }
    fields[SIGNATURE] = calRequestSignature(fields, request.body, unsigned, this.secretKey);
  }

  doAfterResponse(): void {}
}
