/**
 * The account the broker signs its own name-server requests with (innerClientAuthenticationCredentials,
 * upstream 5.x's key; its BrokerOuterAPI signs with an AclClientRPCHook too), for name servers with
 * ACL on.
 */
import { ValidationError } from '../../common/errors.js';

export interface InnerCredentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

/** Reads the setting's JSON; undefined when it is unset or blank. Never echoes the value. */
export function parseInnerCredentials(text: string | undefined): InnerCredentials | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ValidationError(
      'innerClientAuthenticationCredentials must be JSON {"accessKey":"...","secretKey":"..."}',
    );
  }
  const v = value as { accessKey?: unknown; secretKey?: unknown } | null;
  if (
    typeof v?.accessKey !== 'string' ||
    v.accessKey === '' ||
    typeof v.secretKey !== 'string' ||
    v.secretKey === ''
  ) {
    throw new ValidationError(
      'innerClientAuthenticationCredentials needs a non-empty accessKey and secretKey',
    );
  }
  return { accessKey: v.accessKey, secretKey: v.secretKey };
}
