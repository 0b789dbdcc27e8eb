/**
 * ConsumeStats (GET_CONSUME_STATS body, `common/.../admin/ConsumeStats.java`): for each queue a group
 * reads, the broker's max offset, the group's committed offset and the store time of the last
 * message it consumed, plus the group's pull TPS over the last minute.
 * `{"consumeTps":0.0,"offsetTable":{{MessageQueue}:{"brokerOffset":..,"consumerOffset":..,"lastTimestamp":..}}}`.
 */
import { javaDouble, stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { readDouble } from './broker-stats-data.js';
import { type MessageQueueEntries, messageQueueMapValue, readMessageQueueMap } from './message-queue-map.js';

/** `common/.../admin/OffsetWrapper.java`. */
export interface OffsetWrapper {
  brokerOffset: bigint;
  consumerOffset: bigint;
  /** Store time of the message before consumerOffset; 0 when unknown. */
  lastTimestamp: bigint;
}

export interface ConsumeStats {
  /** A Java HashMap: in the order to write (javaMessageQueueMapOrder gives Java's). */
  offsetTable: MessageQueueEntries<OffsetWrapper>;
  /** A Java double. */
  consumeTps: number;
}

export function encodeConsumeStats(s: ConsumeStats): Buffer {
  const value = {
    consumeTps: javaDouble(s.consumeTps),
    offsetTable: messageQueueMapValue(s.offsetTable, (o) => ({
      brokerOffset: o.brokerOffset,
      consumerOffset: o.consumerOffset,
      lastTimestamp: o.lastTimestamp,
    })),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

export function decodeConsumeStats(body: Buffer | undefined): {
  offsetTable: Array<[MessageQueue, OffsetWrapper]>;
  consumeTps: number;
} {
  const r = BodyReader.parse('ConsumeStats', body);
  return {
    offsetTable: readMessageQueueMap(r.optional('offsetTable'), (o) => ({
      brokerOffset: o.optional('brokerOffset')?.long() ?? 0n,
      consumerOffset: o.optional('consumerOffset')?.long() ?? 0n,
      lastTimestamp: o.optional('lastTimestamp')?.long() ?? 0n,
    })),
    consumeTps: readDouble(r.optional('consumeTps')),
  };
}

/** Upstream `computeTotalDiff`: messages the group has yet to consume, over all its queues. */
export function computeTotalDiff(s: Pick<ConsumeStats, 'offsetTable'>): bigint {
  let diff = 0n;
  for (const [, o] of s.offsetTable) diff += o.brokerOffset - o.consumerOffset;
  return diff;
}
