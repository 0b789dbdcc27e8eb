/**
 * ConsumerRunningInfo (`common/.../protocol/body/ConsumerRunningInfo.java`): a consumer's answer to
 * GET_CONSUMER_RUNNING_INFO, which `mqadmin consumerStatus` prints and `consumerProgress -s` reads
 * for the owner of each queue. Bean fields, sorted: jstack (left out when null), mqTable (a
 * TreeMap<MessageQueue, ProcessQueueInfo>, keys written bare), properties (java.util.Properties),
 * statusTable (a TreeMap<String, ConsumeStatus> by topic) and subscriptionSet (a
 * TreeSet<SubscriptionData>):
 * `{"mqTable":{{"brokerName":..,"queueId":..,"topic":..}:{..}},"properties":{"k":"v"},"statusTable":{"T":{..}},"subscriptionSet":[{..}]}`.
 *
 * The three sorted collections are written in Java's order whatever order they are given in. The
 * properties are written in the order given: Java's own order there depends on the JDK (Hashtable
 * before 9, a ConcurrentHashMap inside Properties since), and no reader cares. Every property value
 * is a string, as upstream puts them: `Properties.getProperty` returns null for anything else, and
 * mqadmin's consumerStatus reads PROP_CONSUME_TYPE and PROP_CONSUMER_START_TIMESTAMP through it.
 */
import { FjMap, javaSet, stringifyFastjson } from '../fastjson/index.js';
import { javaStringCompare } from '../message/java-lang.js';
import { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { type ConsumeStatus, consumeStatusValue, readConsumeStatus } from './consume-status.js';
import { messageQueueMapValue, readMessageQueueMap } from './message-queue-map.js';
import { type ProcessQueueInfo, processQueueInfoValue, readProcessQueueInfo } from './process-queue-info.js';
import { readSubscriptionData, type SubscriptionData, subscriptionDataValue } from './subscription-data.js';

/** Upstream's property keys (the constant names are upstream's; PROP_CONSUME_ORDERLY's value lacks the `_`). */
export const ConsumerRunningInfoProp = {
  PROP_NAMESERVER_ADDR: 'PROP_NAMESERVER_ADDR',
  PROP_THREADPOOL_CORE_SIZE: 'PROP_THREADPOOL_CORE_SIZE',
  PROP_CONSUME_ORDERLY: 'PROP_CONSUMEORDERLY',
  PROP_CONSUME_TYPE: 'PROP_CONSUME_TYPE',
  PROP_CLIENT_VERSION: 'PROP_CLIENT_VERSION',
  PROP_CONSUMER_START_TIMESTAMP: 'PROP_CONSUMER_START_TIMESTAMP',
} as const;

export interface ConsumerRunningInfo {
  /** java.util.Properties, in the order to write. */
  properties: ReadonlyMap<string, string>;
  /** A TreeSet ordered by `topic@subString`; of two that compare equal the first is kept. */
  subscriptionSet: readonly SubscriptionData[];
  /** A TreeMap by MessageQueue.compareTo; a queue given twice keeps its last value. */
  mqTable: ReadonlyArray<readonly [MessageQueue, ProcessQueueInfo]>;
  /** A TreeMap by topic; a topic given twice keeps its last value. */
  statusTable: ReadonlyMap<string, ConsumeStatus> | ReadonlyArray<readonly [string, ConsumeStatus]>;
  /** Set only when the request asked for it (jstackEnable). */
  jstack?: string | undefined;
}

/** What decoding gives: the collections in Java's order, as Java would hold them. */
export interface DecodedConsumerRunningInfo {
  properties: Map<string, string>;
  subscriptionSet: SubscriptionData[];
  mqTable: Array<[MessageQueue, ProcessQueueInfo]>;
  statusTable: Map<string, ConsumeStatus>;
  jstack: string | undefined;
}

/** SubscriptionData.compareTo: `topic@subString` as strings. */
export function compareSubscriptionData(a: SubscriptionData, b: SubscriptionData): number {
  return javaStringCompare(`${a.topic}@${a.subString}`, `${b.topic}@${b.subString}`);
}

/** A TreeSet filled in the given order: sorted, and of equal items the first one stays. */
function treeSet<T>(items: Iterable<T>, compare: (a: T, b: T) => number): T[] {
  // Array sort is stable: equal items keep their given order.
  const sorted = [...items].sort(compare);
  return sorted.filter((item, i) => i === 0 || compare(sorted[i - 1] as T, item) !== 0);
}

/** A TreeMap filled by put in the given order: sorted, the first key and the last value stay. */
function treeMap<K, V>(entries: Iterable<readonly [K, V]>, compare: (a: K, b: K) => number): Array<[K, V]> {
  const sorted = [...entries].sort((a, b) => compare(a[0], b[0]));
  const out: Array<[K, V]> = [];
  for (const [k, v] of sorted) {
    const last = out.at(-1);
    if (last !== undefined && compare(last[0], k) === 0) last[1] = v;
    else out.push([k, v]);
  }
  return out;
}

export function encodeConsumerRunningInfo(info: ConsumerRunningInfo): Buffer {
  const value = {
    jstack: info.jstack,
    mqTable: messageQueueMapValue(treeMap(info.mqTable, MessageQueue.compare), processQueueInfoValue),
    properties: new FjMap<string, string>(info.properties),
    statusTable: new FjMap(
      treeMap(info.statusTable, javaStringCompare).map(
        ([topic, s]) => [topic, consumeStatusValue(s)] as const,
      ),
    ),
    subscriptionSet: javaSet(
      treeSet(info.subscriptionSet, compareSubscriptionData).map(subscriptionDataValue),
    ),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/**
 * A property value: a string as is; a number or boolean (a peer other than upstream may write one)
 * as its text, which is what Java's formatString prints; null is left out (Properties holds none).
 */
function propertyText(r: BodyReader): string | undefined {
  const v = r.value;
  if (v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return r.fail('not a property value');
}

/** Throws RemotingCommandError for an empty or malformed body. Absent collections read as empty. */
export function decodeConsumerRunningInfo(body: Buffer | undefined): DecodedConsumerRunningInfo {
  const r = BodyReader.parse('ConsumerRunningInfo', body);
  const properties = new Map<string, string>();
  for (const [k, v] of r.optional('properties')?.entries() ?? []) {
    const text = propertyText(v);
    if (text !== undefined) properties.set(k, text);
  }
  const subscriptions = r.optional('subscriptionSet')?.array().map(readSubscriptionData) ?? [];
  const statuses = (r.optional('statusTable')?.entries() ?? []).map(
    ([topic, s]) => [topic, readConsumeStatus(s)] as const,
  );
  return {
    properties,
    subscriptionSet: treeSet(subscriptions, compareSubscriptionData),
    mqTable: treeMap(readMessageQueueMap(r.optional('mqTable'), readProcessQueueInfo), MessageQueue.compare),
    statusTable: new Map(treeMap(statuses, javaStringCompare)),
    jstack: r.optional('jstack')?.string(),
  };
}
