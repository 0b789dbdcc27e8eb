/**
 * The filters the broker hands to the store when it pulls (upstream `broker/.../filter/
 * ExpressionMessageFilter.java`, `ExpressionForRetryMessageFilter.java`). They have the shape of the
 * store's MessageFilter (src/store/message-store.ts), declared here because this layer may not import
 * the store.
 */

import { MixAll } from '../common/constants.js';
import {
  MessageConst,
  readStoredRecordHeader,
  string2messageProperties,
  tagsCodeToInt,
} from '../common/message/index.js';
import { isTagType } from '../common/protocol/check-client-request-body.js';
import { SUB_ALL, type SubscriptionData } from '../common/protocol/subscription-data.js';
import type { CompiledFilterExpression } from './filter-factory.js';
import { filterExpressionType } from './named-expression.js';

/** Structurally the store's MessageFilter. */
export interface MessageFilter {
  isMatchedByConsumeQueue(tagsCode: bigint | undefined): boolean;
  isMatchedByCommitLog(record: Buffer | undefined): boolean;
}

/** What a filter needs of a ConsumerFilterData: the compiled expression, if the expression compiled. */
export interface FilterDataLike {
  readonly compiledExpression: CompiledFilterExpression | undefined;
}

/** ConsumerFilterManager.get as the retry filter uses it. */
export interface ConsumerFilterLookup {
  get(topic: string, consumerGroup: string): FilterDataLike | undefined;
}

/**
 * The properties of a stored record (MessageDecoder.decodeProperties); undefined when it has none.
 * Throws RemotingCommandError for a record whose lengths do not add up.
 */
export function readRecordProperties(record: Buffer): Map<string, string> | undefined {
  const header = readStoredRecordHeader(record, 0);
  if (header.kind !== 'message' || header.propertiesLength === 0) return undefined;
  const end = header.propertiesOffset + header.propertiesLength;
  return string2messageProperties(record.toString('utf8', header.propertiesOffset, end));
}

/** The record's properties; false when the record cannot be read (such a message matches nothing). */
function readOrFail(record: Buffer | undefined): Map<string, string> | undefined | false {
  if (record === undefined) return undefined;
  try {
    return readRecordProperties(record);
  } catch {
    return false;
  }
}

/**
 * The subscription's tag hash codes as a set, built once per codeSet: a filter is made for every pull,
 * and a heartbeat may carry 100,000 tags, so building it per pull would cost each pull that much.
 */
const codeSets = new WeakMap<readonly number[], ReadonlySet<number>>();
const NO_CODES: ReadonlySet<number> = new Set();

function codeSetOf(subscriptionData: SubscriptionData | undefined): ReadonlySet<number> {
  const codes = subscriptionData?.codeSet;
  if (codes === undefined || codes.length === 0) return NO_CODES;
  let set = codeSets.get(codes);
  if (set === undefined) {
    set = new Set(codes);
    codeSets.set(codes, set);
  }
  return set;
}

/** Hears an expression that threw on a message (the broker logs it, rate-limited). */
export type FilterFailureListener = (error: unknown) => void;

function evaluate(
  expression: CompiledFilterExpression,
  properties: Map<string, string> | undefined,
  onFailure: FilterFailureListener | undefined,
): boolean {
  try {
    return expression.matches(properties);
  } catch (error) {
    // Upstream logs any Throwable from evaluation and treats the message as not matching.
    onFailure?.(error);
    return false;
  }
}

type RecordExpression = CompiledFilterExpression & Required<Pick<CompiledFilterExpression, 'matchesRecord'>>;

function judgesRecords(expression: CompiledFilterExpression): expression is RecordExpression {
  return expression.matchesRecord !== undefined;
}

/**
 * A NAMED expression judges the whole record. Without a record (a held pull whose message could not
 * be read) it lets the message through: the pull that follows reads and judges it.
 */
function evaluateRecord(expression: RecordExpression, record: Buffer | undefined, topic?: string): boolean {
  return record === undefined ? true : expression.matchesRecord(record, topic);
}

/**
 * Tag subscriptions filter on the consume queue's tag hash and pass everything in the commit log;
 * SQL92 subscriptions pass the consume queue (no bloom-filter bit maps here) and are evaluated on the
 * stored record's properties; NAMED ones pass the consume queue too and judge the stored record.
 * Upstream's class-filter flag selects a NAMED filter here (upstream passed everything and left the
 * filtering to a filter server running the client's class).
 */
export class ExpressionMessageFilter implements MessageFilter {
  protected readonly subscriptionData: SubscriptionData | undefined;
  protected readonly consumerFilterData: FilterDataLike | undefined;
  private readonly tagType: boolean;
  private readonly subAll: boolean;
  private readonly codes: ReadonlySet<number>;

  protected readonly onFailure: FilterFailureListener | undefined;

  constructor(
    subscriptionData: SubscriptionData | undefined,
    consumerFilterData: FilterDataLike | undefined,
    onFailure?: FilterFailureListener,
  ) {
    this.subscriptionData = subscriptionData;
    this.consumerFilterData = consumerFilterData;
    this.onFailure = onFailure;
    this.tagType = subscriptionData === undefined || isTagType(filterExpressionType(subscriptionData));
    this.subAll = subscriptionData?.subString === SUB_ALL;
    this.codes = codeSetOf(subscriptionData);
  }

  /** Everything passes without a subscription. */
  protected passesAll(): boolean {
    return this.subscriptionData === undefined;
  }

  isMatchedByConsumeQueue(tagsCode: bigint | undefined): boolean {
    if (this.passesAll()) return true;
    if (!this.tagType) return true;
    if (tagsCode === undefined || this.subAll) return true;
    // Java: codeSet.contains(tagsCode.intValue()), the low 32 bits of the stored long.
    return this.codes.has(tagsCodeToInt(tagsCode));
  }

  isMatchedByCommitLog(record: Buffer | undefined): boolean {
    if (this.passesAll() || this.tagType) return true;
    const expression = this.consumerFilterData?.compiledExpression;
    if (expression === undefined) return true;
    if (judgesRecords(expression)) return evaluateRecord(expression, record);
    const properties = readOrFail(record);
    if (properties === false) return false;
    return evaluate(expression, properties, this.onFailure);
  }
}

/**
 * With the broker's filterSupportRetry: a consumer's retry topic (`%RETRY%group`, subscribed with
 * TAG `*`) is filtered with the SQL92 or NAMED expression the group registered for the message's
 * original topic (its RETRY_TOPIC property), so retried messages obey the same filter as first
 * deliveries; a named filter sees the original topic as the message's topic.
 */
export class ExpressionForRetryMessageFilter extends ExpressionMessageFilter {
  constructor(
    subscriptionData: SubscriptionData | undefined,
    consumerFilterData: FilterDataLike | undefined,
    private readonly consumerFilterManager: ConsumerFilterLookup,
    onFailure?: FilterFailureListener,
  ) {
    super(subscriptionData, consumerFilterData, onFailure);
  }

  override isMatchedByCommitLog(record: Buffer | undefined): boolean {
    const sub = this.subscriptionData;
    if (sub === undefined) return true;
    const isRetryTopic = sub.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
    if (!isRetryTopic && isTagType(filterExpressionType(sub))) return true;
    let properties: Map<string, string> | undefined;
    let filterData = this.consumerFilterData;
    let realTopic: string | undefined;
    if (isRetryTopic) {
      const read = readOrFail(record);
      if (read === false) return false;
      properties = read;
      realTopic = properties?.get(MessageConst.PROPERTY_RETRY_TOPIC);
      const group = sub.topic.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length);
      // Upstream dereferences a missing RETRY_TOPIC (NullPointerException); we let the message through.
      filterData = realTopic === undefined ? undefined : this.consumerFilterManager.get(realTopic, group);
    }
    const expression = filterData?.compiledExpression;
    if (expression === undefined) return true;
    if (judgesRecords(expression)) return evaluateRecord(expression, record, realTopic);
    if (!isRetryTopic) {
      const read = readOrFail(record);
      if (read === false) return false;
      properties = read;
    }
    return evaluate(expression, properties, this.onFailure);
  }
}
