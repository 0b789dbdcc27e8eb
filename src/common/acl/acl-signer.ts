/**
 * The request signature of upstream's plain ACL (AclClientRPCHook on the client, PlainAccessValidator on
 * the broker): HMAC-SHA1, Base64, over the header values in key order followed by the body. Both sides
 * build the signed bytes here so they cannot drift apart.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header (extFields) names the ACL adds to every signed request. */
export const ACCESS_KEY = 'AccessKey';
export const SIGNATURE = 'Signature';
export const SECURITY_TOKEN = 'SecurityToken';

/** The broker leaves these out of what it verifies (upstream's `Signature` and `_UNIQUE_KEY_QUERY`). */
export const SERVER_UNSIGNED_FIELDS: ReadonlySet<string> = new Set([SIGNATURE, '_UNIQUE_KEY_QUERY']);
/** The client signs everything but the signature itself. */
export const CLIENT_UNSIGNED_FIELDS: ReadonlySet<string> = new Set([SIGNATURE]);

/** Java's String.compareTo: UTF-16 code units, which is also what `<` does on JS strings. */
function javaOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The values only (no keys, no separators) in Java TreeMap order of their keys, UTF-8, then the raw
 * body. Keys in `excluded` are skipped.
 */
export function combineRequestContent(
  extFields: Readonly<Record<string, string>>,
  body: Buffer | undefined,
  excluded: ReadonlySet<string>,
): Buffer {
  const keys = Object.keys(extFields).sort(javaOrder);
  let text = '';
  for (const key of keys) {
    if (!excluded.has(key)) text += extFields[key];
  }
  const fields = Buffer.from(text, 'utf8');
  return body === undefined || body.length === 0 ? fields : Buffer.concat([fields, body]);
}

/** HMAC-SHA1 keyed by the secret's UTF-8 bytes, standard Base64 with padding (upstream's AclSigner). */
export function calSignature(content: Buffer, secretKey: string): string {
  return createHmac('sha1', Buffer.from(secretKey, 'utf8')).update(content).digest('base64');
}

/** Compares two signatures in time independent of where they differ (upstream uses String.equals). */
export function signatureEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // timingSafeEqual needs equal lengths; comparing `left` with itself keeps the time the same.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
