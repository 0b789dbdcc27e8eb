/**
 * Limits on a frame's header, checked before the header is parsed: a JSON header is one JSON.parse
 * of up to 16 MiB whose extFields become one object, so a frame with a million extFields keys stalls
 * the event loop for seconds and peaks at hundreds of MB before any check (ACL included) runs.
 * Upstream has no such limit (only the frame limit); these are ours, with defaults far above what
 * the official clients send (docs/broker-limits.md gives the measured figures).
 *
 * A header over a limit is not parsed. The few fields needed to answer it (code, opaque, flag) are
 * read without parsing: at fixed offsets in a ROCKETMQ header, by pattern in a JSON one. When they
 * cannot be found, the refusal cannot be answered and the connection is closed instead.
 */
import { RemotingCommandError } from '../../common/errors.js';
import { SerializeType } from './command.js';

export interface HeaderLimits {
  /** Largest header, in bytes; Infinity for none. */
  readonly maxHeaderSize: number;
  /** Most extFields entries one header may carry; Infinity for none. */
  readonly maxExtFields: number;
}

export const NO_HEADER_LIMITS: HeaderLimits = Object.freeze({
  maxHeaderSize: Number.POSITIVE_INFINITY,
  maxExtFields: Number.POSITIVE_INFINITY,
});

/** The fields of a refused header that let the refusal be answered. */
export interface HeaderIds {
  readonly code: number;
  readonly opaque: number;
  readonly flag: number;
}

/** A header over a HeaderLimits bound; `ids` is undefined when they could not be read unparsed. */
export class HeaderLimitError extends RemotingCommandError {
  readonly ids: HeaderIds | undefined;
  readonly limit: 'maxHeaderSize' | 'maxExtFields';

  constructor(limit: 'maxHeaderSize' | 'maxExtFields', message: string, ids: HeaderIds | undefined) {
    super('header', message);
    this.limit = limit;
    this.ids = ids;
  }
}

/** A JSON extFields entry takes at least 5 bytes (`"":0,`), so a shorter header cannot hold more. */
const MIN_JSON_ENTRY = 5;

/**
 * Colons outside strings at object depth 2 or more: the extFields entries of a JSON header (the only
 * nested object a RemotingCommand has), or more for a header that nests deeper. One byte loop, no
 * allocation, stopping once `stopAbove` is passed.
 */
export function countJsonExtFields(header: Buffer, stopAbove: number): number {
  let depth = 0;
  let inString = false;
  let count = 0;
  for (let i = 0; i < header.length; i++) {
    const c = header[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x3a && depth >= 2 && ++count > stopAbove) return count;
  }
  return count;
}

/** How many extFields entries a ROCKETMQ header holds, counted by walking the lengths only. */
function countRocketMQExtFields(header: Buffer, stopAbove: number): number {
  if (header.length < 21) return 0;
  const remarkLength = header.readInt32BE(13);
  let pos = 17 + remarkLength;
  if (remarkLength < 0 || pos + 4 > header.length) return 0;
  const end = Math.min(header.length, pos + 4 + Math.max(0, header.readInt32BE(pos)));
  pos += 4;
  let count = 0;
  while (end - pos >= 6) {
    if (++count > stopAbove) return count;
    const keyLength = header.readInt16BE(pos);
    if (keyLength < 0 || pos + 2 + keyLength + 4 > end) break;
    pos += 2 + keyLength;
    const valueLength = header.readInt32BE(pos);
    if (valueLength < 0) break;
    pos += 4 + valueLength;
  }
  return count;
}

const JSON_CODE = /"code"\s*:\s*(-?\d{1,11})/;
const JSON_OPAQUE = /"opaque"\s*:\s*(-?\d{1,11})/;
const JSON_FLAG = /"flag"\s*:\s*(-?\d{1,11})/;
/** Where the fields are looked for: writers put them before or after extFields, never inside. */
const JSON_EDGE = 512;

function int32(match: RegExpExecArray | null): number | undefined {
  if (match === null) return undefined;
  const n = Number(match[1]);
  return Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** code, opaque and flag of a header that is not parsed, or undefined if they are not to be found. */
export function peekHeaderIds(type: number, header: Buffer): HeaderIds | undefined {
  if (type === SerializeType.ROCKETMQ) {
    if (header.length < 13) return undefined;
    return { code: header.readInt16BE(0), opaque: header.readInt32BE(5), flag: header.readInt32BE(9) };
  }
  const head = header.toString('latin1', 0, Math.min(header.length, JSON_EDGE));
  const tail =
    header.length > JSON_EDGE
      ? header.toString('latin1', Math.max(JSON_EDGE, header.length - JSON_EDGE))
      : '';
  const find = (pattern: RegExp) => int32(pattern.exec(head)) ?? int32(pattern.exec(tail));
  const code = find(JSON_CODE);
  const opaque = find(JSON_OPAQUE);
  if (code === undefined || opaque === undefined) return undefined;
  return { code, opaque, flag: find(JSON_FLAG) ?? 0 };
}

/** Throws HeaderLimitError when `header` (of serialize `type`) breaks `limits`; parses nothing. */
export function checkHeaderLimits(type: number, header: Buffer, limits: HeaderLimits): void {
  if (header.length > limits.maxHeaderSize) {
    throw new HeaderLimitError(
      'maxHeaderSize',
      `header of ${header.length} bytes exceeds the limit of ${limits.maxHeaderSize} bytes`,
      peekHeaderIds(type, header),
    );
  }
  const max = limits.maxExtFields;
  if (!Number.isFinite(max)) return;
  let count: number;
  if (type === SerializeType.ROCKETMQ) {
    // 6 bytes per entry at the least, after the 21 fixed ones.
    if (header.length - 21 <= 6 * max) return;
    count = countRocketMQExtFields(header, max);
  } else {
    if (header.length <= MIN_JSON_ENTRY * max) return;
    count = countJsonExtFields(header, max);
  }
  if (count > max) {
    throw new HeaderLimitError(
      'maxExtFields',
      `header with more than ${max} extFields entries exceeds the limit of ${max}`,
      peekHeaderIds(type, header),
    );
  }
}

/** The remark of a refused header's response: names the request code and the limit. */
export function headerOverLimitRemark(code: number, error: HeaderLimitError): string {
  return `request code ${code}: ${error.message} (${error.limit})`;
}
