/**
 * Building subscriptions and the client's tag re-check (upstream `common/.../filter/FilterAPI.java`,
 * `client/.../PullAPIWrapper.processPullResult`).
 */

import { JAVA_INTEGER_KEY, javaHashMapIterationOrder, javaHashMapOrder } from '../common/fastjson/index.js';
import { javaStringHashCode } from '../common/java-hash.js';
import { isTagType } from '../common/protocol/check-client-request-body.js';
import { ExpressionType, SUB_ALL, type SubscriptionData } from '../common/protocol/subscription-data.js';
import { FilterCompileError } from './errors.js';
import { javaTrim } from './sql/java-number.js';

export interface BuildSubscriptionOptions {
  /** SubscriptionData.subVersion; Java takes System.currentTimeMillis() when the object is built. */
  readonly subVersion?: bigint;
  /**
   * Order tagsSet and codeSet as Java's HashSets iterate [true], which the heartbeat's bytes need. The
   * broker filtering a pull only asks the sets for membership: without the order, building from a
   * subscription of 100,000 tags costs a quarter as much.
   */
  readonly javaOrder?: boolean;
}

function newSubscription(
  topic: string,
  subString: string,
  options: BuildSubscriptionOptions,
): SubscriptionData {
  return {
    topic,
    subString,
    tagsSet: [],
    codeSet: [],
    subVersion: options.subVersion ?? BigInt(Date.now()),
    expressionType: ExpressionType.TAG,
    classFilterMode: false,
  };
}

/** Java `s.split("\\|\\|")`: split on `||` left to right, trailing empty pieces dropped. */
function splitTags(s: string): string[] {
  const pieces = s.split('||');
  if (pieces.length === 1) return pieces;
  let end = pieces.length;
  while (end > 0 && pieces[end - 1] === '') end--;
  return pieces.slice(0, end);
}

/**
 * FilterAPI.buildSubscriptionData: a TAG subscription. Absent, empty or `*` subscribes to everything
 * (subString becomes `*`); otherwise the text is split on `||`, each piece trimmed (Java trim: chars
 * <= U+0020), empty pieces skipped, and each tag and its Java String.hashCode kept. The sets are
 * ordered as Java's HashSets iterate, so the heartbeat JSON matches Java's byte for byte. Text made
 * only of `||` (nothing left after the split) is refused as upstream refuses it.
 */
export function buildSubscriptionData(
  topic: string,
  subString: string | undefined,
  options: BuildSubscriptionOptions = {},
): SubscriptionData {
  if (subString === undefined || subString === SUB_ALL || subString.length === 0) {
    return newSubscription(topic, SUB_ALL, options);
  }
  const data = newSubscription(topic, subString, options);
  const tags = splitTags(subString);
  if (tags.length === 0) throw new FilterCompileError(`subString split error: "${subString}"`);
  const tagsSet: string[] = [];
  const codeSet: number[] = [];
  for (const tag of tags) {
    const trimmed = javaTrim(tag);
    if (trimmed.length === 0) continue;
    tagsSet.push(trimmed);
    codeSet.push(javaStringHashCode(trimmed));
  }
  if (options.javaOrder === false) {
    data.tagsSet = [...new Set(tagsSet)];
    data.codeSet = [...new Set(codeSet)];
  } else {
    data.tagsSet = javaHashMapOrder([...new Set(tagsSet)]);
    data.codeSet = javaHashMapIterationOrder(codeSet, JAVA_INTEGER_KEY);
  }
  return data;
}

/**
 * FilterAPI.build: TAG (or no type) goes through buildSubscriptionData; any other type keeps the
 * expression as it is (it is compiled by the broker) and must not be empty. Note that only an absent
 * type or exactly `TAG` takes the tag path: an empty type keeps the expression, and the result then
 * counts as TAG wherever isTagType is asked, as upstream.
 */
export function build(
  topic: string,
  subString: string | undefined,
  type: string | undefined,
  options: BuildSubscriptionOptions = {},
): SubscriptionData {
  if (type === undefined || type === ExpressionType.TAG)
    return buildSubscriptionData(topic, subString, options);
  if (subString === undefined || subString.length < 1) {
    throw new FilterCompileError(`Expression can't be null! ${type}`);
  }
  const data = newSubscription(topic, subString, options);
  data.expressionType = type;
  return data;
}

/** Upstream's static FilterAPI, for call sites that read like Java. */
export const FilterAPI = { buildSubscriptionData, build } as const;

/**
 * The client's re-check of pulled messages (the broker filtered by hash, and hashes collide): with a
 * non-empty tagsSet and no class filter, only a message whose TAGS is one of the tags is kept; a
 * message without TAGS is dropped.
 */
export function isTagMatched(
  subscription: Pick<SubscriptionData, 'tagsSet' | 'classFilterMode'>,
  tags: string | undefined,
): boolean {
  if (subscription.tagsSet.length === 0 || subscription.classFilterMode) return true;
  return tags !== undefined && subscription.tagsSet.includes(tags);
}

export { isTagType };
