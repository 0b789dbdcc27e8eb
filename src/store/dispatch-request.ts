/**
 * What the commit log tells the consume queues and the index about each stored record (upstream
 * `DispatchRequest`). The same request comes from an append (right after its bytes were written) and
 * from parsing stored bytes (recovery, rebuilding consume queues), so both paths must agree field for
 * field. Offsets, times and the tag hash are int64 values (bigint), as in the consume-queue entry and
 * index entry they go into.
 */

import { MessageConst, NAME_VALUE_SEPARATOR, PROPERTY_SEPARATOR } from '../common/message/message-const.js';
import { string2messageProperties } from '../common/message/properties.js';

/**
 * A record's properties kept as stored bytes (a batch's records), decoded only when a dispatcher
 * asks: the consume queue and the index read what they need from the bytes.
 */
export interface RecordProperties {
  propertiesOf(index: number): string;
  keysOf(index: number): string;
  uniqKeyOf(index: number): string | undefined;
}

export class DispatchRequest {
  readonly topic: string;
  readonly queueId: number;
  readonly commitLogOffset: bigint;
  readonly msgSize: number;
  /** TAGS hash, or the delivery time for SCHEDULE_TOPIC_XXXX records. */
  readonly tagsCode: bigint;
  readonly storeTimestamp: bigint;
  readonly consumeQueueOffset: bigint;
  readonly sysFlag: number;
  readonly preparedTransactionOffset: bigint;
  private propertiesValue: string | undefined;
  private readonly source: RecordProperties | undefined;
  private readonly sourceIndex: number;
  private keysValue: string | undefined;
  private uniqKeyValue: string | null | undefined;

  /** `properties`: the properties string, or where to decode it from (record `sourceIndex` of it). */
  constructor(
    topic: string,
    queueId: number,
    commitLogOffset: bigint,
    msgSize: number,
    tagsCode: bigint,
    storeTimestamp: bigint,
    consumeQueueOffset: bigint,
    sysFlag: number,
    preparedTransactionOffset: bigint,
    properties: string | RecordProperties,
    sourceIndex = 0,
  ) {
    this.topic = topic;
    this.queueId = queueId;
    this.commitLogOffset = commitLogOffset;
    this.msgSize = msgSize;
    this.tagsCode = tagsCode;
    this.storeTimestamp = storeTimestamp;
    this.consumeQueueOffset = consumeQueueOffset;
    this.sysFlag = sysFlag;
    this.preparedTransactionOffset = preparedTransactionOffset;
    if (typeof properties === 'string') {
      this.propertiesValue = properties;
      this.source = undefined;
    } else {
      this.propertiesValue = undefined;
      this.source = properties;
    }
    this.sourceIndex = sourceIndex;
  }

  /** The properties as stored. */
  get propertiesString(): string {
    this.propertiesValue ??= this.source?.propertiesOf(this.sourceIndex) ?? '';
    return this.propertiesValue;
  }

  /** KEYS property ('' when absent), space-separated keys for the index. */
  get keys(): string {
    this.keysValue ??=
      this.source !== undefined
        ? this.source.keysOf(this.sourceIndex)
        : (getProperty(this.propertiesString, MessageConst.PROPERTY_KEYS) ?? '');
    return this.keysValue;
  }

  /** UNIQ_KEY property (the client's message id), if any. */
  get uniqKey(): string | undefined {
    if (this.uniqKeyValue === undefined) {
      this.uniqKeyValue =
        (this.source !== undefined
          ? this.source.uniqKeyOf(this.sourceIndex)
          : getProperty(this.propertiesString, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)) ?? null;
    }
    return this.uniqKeyValue ?? undefined;
  }

  /** All properties, parsed on each call. */
  get propertiesMap(): Map<string, string> {
    return string2messageProperties(this.propertiesString);
  }
}

/**
 * The records of one appended batch, back to back in the commit log and in one queue, for a
 * dispatcher that handles them together. `request(i)` is record i's DispatchRequest, built when
 * first asked for; the other accessors read the batch without building one.
 */
export interface DispatchBatch {
  readonly topic: string;
  readonly queueId: number;
  readonly sysFlag: number;
  readonly count: number;
  /** Commit-log offset of the first record (a safe integer). */
  readonly commitLogOffset: number;
  /** Queue offset of the first record; the others follow it. */
  readonly consumeQueueOffset: number;
  readonly storeTimestamp: number;
  msgSize(index: number): number;
  /** The TAGS hash of record `index`, an int32 (0 without TAGS). */
  tagsCode(index: number): number;
  /** KEYS of record `index` ('' when absent). */
  keys(index: number): string;
  /** Java's hashCode of a text ending with record `index`'s UNIQ_KEY, continued from `seed`; undefined without one. */
  uniqKeyHash(index: number, seed: number): number | undefined;
  request(index: number): DispatchRequest;
}

/** Receives each stored record (upstream `CommitLogDispatcher`). */
export interface CommitLogDispatcher {
  dispatch(request: DispatchRequest): void;
  /** A batch's records at once; a dispatcher without it gets each record's request. */
  dispatchBatch?(batch: DispatchBatch): void;
}

/**
 * One property of a properties string, read by the same rules as `string2messageProperties` (segments
 * split on \u0002, the name runs to the first \u0001 from the segment start, empty names and values are
 * dropped, a later duplicate wins) without building the map.
 */
export function getProperty(properties: string, name: string): string | undefined {
  const len = properties.length;
  let value: string | undefined;
  let index = 0;
  while (index < len) {
    let end = properties.indexOf(PROPERTY_SEPARATOR, index);
    if (end < 0) end = len;
    if (end - index >= 3 && end - index > name.length + 1 && properties.startsWith(name, index)) {
      const kv = properties.indexOf(NAME_VALUE_SEPARATOR, index);
      if (kv === index + name.length && kv < end - 1) value = properties.slice(kv + 1, end);
    }
    index = end + 1;
  }
  return value;
}
