/**
 * TopicConfig (`common/.../TopicConfig.java`): one topic's queue counts, permission and flags, as a
 * broker holds it (topics.json) and reports it to the name server. Two encodings: the fastjson bean
 * (keys sorted: order, perm, readQueueNums, topicFilterType, topicName, topicSysFlag, writeQueueNums)
 * and the text form of the compressed registration, `"<name> <read> <write> <perm> <filterType>"`,
 * which drops topicSysFlag and order.
 */

import { PermName } from '../constants.js';
import { RemotingCommandError } from '../errors.js';
import type { FjEmittableRecord } from '../fastjson/index.js';
import { parseJavaInt } from '../java-parse.js';
import type { BodyReader } from './body-reader.js';

export type TopicFilterType = 'SINGLE_TAG' | 'MULTI_TAG';

export interface TopicConfig {
  topicName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicFilterType: TopicFilterType;
  topicSysFlag: number;
  order: boolean;
}

/** TopicConfig.defaultReadQueueNums / defaultWriteQueueNums. */
export const DEFAULT_TOPIC_QUEUE_NUMS = 16;

/** Any fields of a TopicConfig besides its name; undefined means Java's initial value. */
export type TopicConfigFields = {
  [K in Exclude<keyof TopicConfig, 'topicName'>]?: TopicConfig[K] | undefined;
};

/** A TopicConfig with Java's field initialisers for everything not given. */
export function createTopicConfig(topicName: string, fields: TopicConfigFields = {}): TopicConfig {
  return {
    topicName,
    readQueueNums: fields.readQueueNums ?? DEFAULT_TOPIC_QUEUE_NUMS,
    writeQueueNums: fields.writeQueueNums ?? DEFAULT_TOPIC_QUEUE_NUMS,
    perm: fields.perm ?? PermName.PERM_READ | PermName.PERM_WRITE,
    topicFilterType: fields.topicFilterType ?? 'SINGLE_TAG',
    topicSysFlag: fields.topicSysFlag ?? 0,
    order: fields.order ?? false,
  };
}

export function isTopicFilterType(s: string): s is TopicFilterType {
  return s === 'SINGLE_TAG' || s === 'MULTI_TAG';
}

/** TopicConfig.equals. */
export function topicConfigEquals(a: TopicConfig, b: TopicConfig): boolean {
  return (
    a.topicName === b.topicName &&
    a.readQueueNums === b.readQueueNums &&
    a.writeQueueNums === b.writeQueueNums &&
    a.perm === b.perm &&
    a.topicFilterType === b.topicFilterType &&
    a.topicSysFlag === b.topicSysFlag &&
    a.order === b.order
  );
}

/** The bean as fastjson writes it. */
export function topicConfigValue(c: TopicConfig): FjEmittableRecord {
  return {
    order: c.order,
    perm: c.perm,
    readQueueNums: c.readQueueNums,
    topicFilterType: c.topicFilterType,
    topicName: c.topicName,
    topicSysFlag: c.topicSysFlag,
    writeQueueNums: c.writeQueueNums,
  };
}

/**
 * Reads a TopicConfig bean; absent fields take Java's initial values. A config without a topicName
 * is refused: Java would go on to use a null map key and fail there.
 */
export function readTopicConfig(r: BodyReader): TopicConfig {
  const filterField = r.optional('topicFilterType');
  const filter = filterField?.string() ?? 'SINGLE_TAG';
  if (!isTopicFilterType(filter)) return (filterField ?? r).fail(`unknown TopicFilterType ${filter}`);
  return createTopicConfig(r.field('topicName').string(), {
    readQueueNums: r.optional('readQueueNums')?.int(),
    writeQueueNums: r.optional('writeQueueNums')?.int(),
    perm: r.optional('perm')?.int(),
    topicFilterType: filter,
    topicSysFlag: r.optional('topicSysFlag')?.int(),
    order: r.optional('order')?.boolean(),
  });
}

/** TopicConfig.encode(): the text form of the compressed registration body. */
export function encodeTopicConfigText(c: TopicConfig): string {
  return `${c.topicName} ${c.readQueueNums} ${c.writeQueueNums} ${c.perm} ${c.topicFilterType}`;
}

/**
 * TopicConfig.decode(String): `in.split(" ")` (trailing empty tokens dropped, as Java's split does)
 * must give five tokens; numbers parse like Integer.parseInt, the filter type like valueOf. Where
 * Java's decode would leave a config without a name or throw, this throws RemotingCommandError.
 */
export function decodeTopicConfigText(text: string): TopicConfig {
  const parts = text.split(' ');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  const fail = (why: string): never => {
    throw new RemotingCommandError('TopicConfig', `${why}: ${JSON.stringify(text.slice(0, 200))}`);
  };
  if (parts.length !== 5) fail(`expected 5 space-separated tokens, got ${parts.length}`);
  const [name, read, write, perm, filter] = parts as [string, string, string, string, string];
  const int = (token: string, what: string): number => parseJavaInt(token) ?? fail(`${what} is not an int`);
  if (!isTopicFilterType(filter)) return fail(`unknown TopicFilterType ${JSON.stringify(filter)}`);
  return createTopicConfig(name, {
    readQueueNums: int(read, 'readQueueNums'),
    writeQueueNums: int(write, 'writeQueueNums'),
    perm: int(perm, 'perm'),
    topicFilterType: filter,
  });
}
