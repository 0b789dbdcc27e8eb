/**
 * JSON in and out of the dashboard's API: Java longs (bigint) become numbers when exact, else strings;
 * Maps become objects; errors become `{ error, code }` with a status saying whose fault it was.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MQBrokerError } from '../../client/errors.js';
import { RocketMQError, ValidationError } from '../../common/errors.js';

/** A request the API refuses (bad or missing parameters, wrong method, unknown route). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Security headers of every answer: nothing may frame the page or run script from elsewhere. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
});

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint')
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  extra: Record<string, string> = {},
) {
  const body = Buffer.from(JSON.stringify(value, replacer), 'utf8');
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(body.length),
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(body);
}

/** The answer to a failed call: the broker's remark when it refused (an ACL refusal names the account). */
export function sendError(res: ServerResponse, error: unknown): void {
  if (error instanceof HttpError) {
    sendJson(res, error.status, { error: error.message });
  } else if (error instanceof ValidationError) {
    sendJson(res, 400, { error: error.message });
  } else if (error instanceof MQBrokerError) {
    sendJson(res, 502, {
      error: error.message,
      code: error.responseCode,
      remark: error.remark ?? null,
      brokerAddr: error.brokerAddr,
    });
  } else if (error instanceof RocketMQError) {
    sendJson(res, 502, { error: error.message, code: error.responseCode });
  } else {
    sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * The JSON object of a POST. Only `application/json` is taken: a page on another origin cannot send
 * that without a CORS preflight, which the dashboard never answers, so forms elsewhere cannot mutate.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'a POST body must be application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new HttpError(413, `request body over ${limit} bytes`);
    chunks.push(buf);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new HttpError(400, 'request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** Parameters of one call, from the query string (GET) or the JSON body (POST). */
export class Params {
  constructor(private readonly values: Readonly<Record<string, unknown>>) {}

  static ofQuery(search: URLSearchParams): Params {
    return new Params(Object.fromEntries(search));
  }

  optionalString(name: string): string | undefined {
    const v = this.values[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new HttpError(400, `${name} must be a string`);
    return v;
  }

  string(name: string): string {
    const v = this.optionalString(name);
    if (v === undefined) throw new HttpError(400, `${name} is required`);
    return v;
  }

  optionalInt(name: string): number | undefined {
    const v = this.values[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n)) throw new HttpError(400, `${name} must be an integer`);
    return n;
  }

  int(name: string): number {
    const v = this.optionalInt(name);
    if (v === undefined) throw new HttpError(400, `${name} is required`);
    return v;
  }

  optionalBool(name: string): boolean | undefined {
    const v = this.values[name];
    if (v === undefined || v === null || v === '') return undefined;
    if (v === true || v === 'true') return true;
    if (v === false || v === 'false') return false;
    throw new HttpError(400, `${name} must be true or false`);
  }
}
