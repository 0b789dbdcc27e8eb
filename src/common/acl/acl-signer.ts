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

/**
 * The header values (no keys, no separators) in Java TreeMap order of their keys, as one string.
 * Keys in `excluded` are skipped. JS's default sort compares UTF-16 code units, as Java's
 * String.compareTo does.
 */
function signedFieldText(extFields: Readonly<Record<string, string>>, excluded: ReadonlySet<string>): string {
  const keys = Object.keys(extFields).sort();
  let text = '';
  for (const key of keys) {
    if (!excluded.has(key)) text += extFields[key];
  }
  return text;
}

/** The signed bytes: the values in key order as UTF-8, then the raw body. */
export function combineRequestContent(
  extFields: Readonly<Record<string, string>>,
  body: Buffer | undefined,
  excluded: ReadonlySet<string>,
): Buffer {
  const fields = Buffer.from(signedFieldText(extFields, excluded), 'utf8');
  return body === undefined || body.length === 0 ? fields : Buffer.concat([fields, body]);
}

/** HMAC-SHA1 keyed by the secret's UTF-8 bytes, standard Base64 with padding (upstream's AclSigner). */
export function calSignature(content: Buffer, secretKey: string | Buffer): string {
  return createHmac('sha1', secretKeyBytes(secretKey)).update(content).digest('base64');
}

/**
 * calSignature(combineRequestContent(...)) without building the content: the values go into the HMAC
 * as one string and the body after them (this runs for every request on both ends).
 */
export function calRequestSignature(
  extFields: Readonly<Record<string, string>>,
  body: Buffer | undefined,
  excluded: ReadonlySet<string>,
  secretKey: string | Buffer,
): string {
  const hmac = createHmac('sha1', secretKeyBytes(secretKey)).update(
    signedFieldText(extFields, excluded),
    'utf8',
  );
  if (body !== undefined) hmac.update(body);
  return hmac.digest('base64');
}

function secretKeyBytes(secretKey: string | Buffer): Buffer {
  return typeof secretKey === 'string' ? Buffer.from(secretKey, 'utf8') : secretKey;
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
