/**
 * ConsumeStats (GET_CONSUME_STATS body, `common/.../admin/ConsumeStats.java`): for each queue a group
 * reads, the broker's max offset, the group's committed offset and the store time of the last
 * message it consumed, plus the group's pull TPS over the last minute.
 * `{"consumeTps":0.0,"offsetTable":{{MessageQueue}:{"brokerOffset":..,"consumerOffset":..,"lastTimestamp":..}}}`
 * (5.x adds `"pullOffset"` after lastTimestamp).
 */
import { type FjEmittableRecord, javaDouble, stringifyFastjson } from '../fastjson/index.js';
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
  /**
   * 5.x: how far the group has taken messages out (mqadmin 5.x prints `pullOffset - consumerOffset`
   * as `#Inflight`). Absent in 4.x bodies (and then not written); a 4.x reader ignores it.
   */
  pullOffset?: bigint;
}

export interface ConsumeStats {
  /** A Java HashMap: in the order to write (javaMessageQueueMapOrder gives Java's). */
  offsetTable: MessageQueueEntries<OffsetWrapper>;
  /** A Java double. */
  consumeTps: number;
}

/** The bean as fastjson writes it (also nested in ConsumeStatsList). */
export function consumeStatsValue(s: ConsumeStats): FjEmittableRecord {
  return {
    consumeTps: javaDouble(s.consumeTps),
    offsetTable: messageQueueMapValue(s.offsetTable, (o) => ({
      brokerOffset: o.brokerOffset,
      consumerOffset: o.consumerOffset,
      lastTimestamp: o.lastTimestamp,
      ...(o.pullOffset === undefined ? {} : { pullOffset: o.pullOffset }),
    })),
  };
}

export function encodeConsumeStats(s: ConsumeStats): Buffer {
  return Buffer.from(stringifyFastjson(consumeStatsValue(s)), 'utf8');
}

export interface DecodedConsumeStats {
  offsetTable: Array<[MessageQueue, OffsetWrapper]>;
  consumeTps: number;
}

export function readConsumeStats(r: BodyReader): DecodedConsumeStats {
  return {
    offsetTable: readMessageQueueMap(r.optional('offsetTable'), (o) => {
      const pullOffset = o.optional('pullOffset')?.long();
      return {
        brokerOffset: o.optional('brokerOffset')?.long() ?? 0n,
        consumerOffset: o.optional('consumerOffset')?.long() ?? 0n,
        lastTimestamp: o.optional('lastTimestamp')?.long() ?? 0n,
        ...(pullOffset === undefined ? {} : { pullOffset }),
      };
    }),
    consumeTps: readDouble(r.optional('consumeTps')),
  };
}

export function decodeConsumeStats(body: Buffer | undefined): DecodedConsumeStats {
  return readConsumeStats(BodyReader.parse('ConsumeStats', body));
}

/** Upstream `computeTotalDiff`: messages the group has yet to consume, over all its queues. */
export function computeTotalDiff(s: Pick<ConsumeStats, 'offsetTable'>): bigint {
  let diff = 0n;
  for (const [, o] of s.offsetTable) diff += o.brokerOffset - o.consumerOffset;
  return diff;
}
