/**
 * ConsumeMessageDirectlyResult (`common/.../protocol/body/ConsumeMessageDirectlyResult.java`): a
 * consumer's answer to CONSUME_MESSAGE_DIRECTLY (`mqadmin queryMsgById -d`, `consumeMessage`): how
 * its listener handled the one message. Bean fields, sorted; consumeResult (an enum, by name) and
 * remark are left out when null:
 * `{"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"remark":"..","spentTimeMills":12}`.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { readEnum } from './heartbeat-data.js';

/** Upstream CMResult. */
export const CMResult = {
  CR_SUCCESS: 'CR_SUCCESS',
  CR_LATER: 'CR_LATER',
  CR_ROLLBACK: 'CR_ROLLBACK',
  CR_COMMIT: 'CR_COMMIT',
  CR_THROW_EXCEPTION: 'CR_THROW_EXCEPTION',
  CR_RETURN_NULL: 'CR_RETURN_NULL',
} as const;
export type CMResult = (typeof CMResult)[keyof typeof CMResult];

export interface ConsumeMessageDirectlyResult {
  /** True from the orderly consume service [false]. */
  order: boolean;
  /** The orderly context's autoCommit after the listener ran [true]. */
  autoCommit: boolean;
  /** Undefined when the listener never ran (Java leaves it null). */
  consumeResult: CMResult | undefined;
  /** The exception's simple description when the listener threw. */
  remark: string | undefined;
  /** How long the listener took, ms (a Java long). */
  spentTimeMills: bigint;
}

/** A new result as Java makes it. */
export function emptyConsumeMessageDirectlyResult(): ConsumeMessageDirectlyResult {
  return { order: false, autoCommit: true, consumeResult: undefined, remark: undefined, spentTimeMills: 0n };
}

export function encodeConsumeMessageDirectlyResult(r: ConsumeMessageDirectlyResult): Buffer {
  const value = {
    autoCommit: r.autoCommit,
    consumeResult: r.consumeResult,
    order: r.order,
    remark: r.remark,
    spentTimeMills: r.spentTimeMills,
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/**
 * Throws RemotingCommandError for an empty or malformed body. Absent fields take Java's initial
 * values; an unknown consumeResult name reads as undefined, as fastjson reads it as null.
 */
export function decodeConsumeMessageDirectlyResult(body: Buffer | undefined): ConsumeMessageDirectlyResult {
  const r = BodyReader.parse('ConsumeMessageDirectlyResult', body);
  return {
    order: r.optional('order')?.boolean() ?? false,
    autoCommit: r.optional('autoCommit')?.boolean() ?? true,
    consumeResult: readEnum(r.optional('consumeResult'), CMResult),
    remark: r.optional('remark')?.string(),
    spentTimeMills: r.optional('spentTimeMills')?.long() ?? 0n,
  };
}
