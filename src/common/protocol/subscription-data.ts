/**
 * SubscriptionData (`common/.../protocol/heartbeat/SubscriptionData.java`): one topic subscription of
 * a consumer group, as heartbeats carry it and GET_CONSUMER_CONNECTION_LIST reports it. Bean keys
 * (sorted): classFilterMode, codeSet, expressionType, subString, subVersion, tagsSet, topic.
 * `filterClassSource` is `@JSONField(serialize=false)` and never travels.
 */
import { type FjEmittableRecord, javaSet } from '../fastjson/index.js';
import type { BodyReader } from './body-reader.js';

/** ExpressionType constants; other values are kept as sent (a 5.x client may invent more). */
export const ExpressionType = {
  TAG: 'TAG',
  SQL92: 'SQL92',
} as const;

/** SubscriptionData.SUB_ALL. */
export const SUB_ALL = '*';

export interface SubscriptionData {
  topic: string;
  subString: string;
  /** Tags of a TAG expression (a Java HashSet, kept in the order received). */
  tagsSet: string[];
  /** Java `String.hashCode` of each tag. */
  codeSet: number[];
  /** When the client built the subscription (ms); the broker keeps the newer of two. */
  subVersion: bigint;
  expressionType: string;
  classFilterMode: boolean;
}

export function subscriptionDataValue(s: SubscriptionData): FjEmittableRecord {
  return {
    classFilterMode: s.classFilterMode,
    codeSet: javaSet(s.codeSet),
    expressionType: s.expressionType,
    subString: s.subString,
    subVersion: s.subVersion,
    tagsSet: javaSet(s.tagsSet),
    topic: s.topic,
  };
}

/**
 * Absent fields take Java's initial values (empty sets, TAG, not class filter); `subVersion` has
 * none a codec could give (Java uses the decode time), so a missing one reads as 0, older than any.
 * A subscription without a topic is refused: Java would put it under a null map key.
 */
export function readSubscriptionData(r: BodyReader): SubscriptionData {
  return {
    topic: r.field('topic').string(),
    subString: r.optional('subString')?.string() ?? '',
    tagsSet:
      r
        .optional('tagsSet')
        ?.array()
        .map((t) => t.string()) ?? [],
    codeSet:
      r
        .optional('codeSet')
        ?.array()
        .map((c) => c.int()) ?? [],
    subVersion: r.optional('subVersion')?.long() ?? 0n,
    expressionType: r.optional('expressionType')?.string() ?? ExpressionType.TAG,
    classFilterMode: r.optional('classFilterMode')?.boolean() ?? false,
  };
}
