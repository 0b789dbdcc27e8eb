/**
 * TopicStatsTable (GET_TOPIC_STATS_INFO body, `common/.../admin/TopicStatsTable.java`): each queue's
 * min and max offset and the store time of its newest message.
 * `{"offsetTable":{{MessageQueue}:{"lastUpdateTimestamp":..,"maxOffset":..,"minOffset":..},..}}`.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { type MessageQueueEntries, messageQueueMapValue, readMessageQueueMap } from './message-queue-map.js';

/** `common/.../admin/TopicOffset.java`. */
export interface TopicOffset {
  minOffset: bigint;
  maxOffset: bigint;
  /** Store time of the message at maxOffset - 1; 0 for an empty queue. */
  lastUpdateTimestamp: bigint;
}

export interface TopicStatsTable {
  /** A Java HashMap: in the order to write (javaMessageQueueMapOrder gives Java's). */
  offsetTable: MessageQueueEntries<TopicOffset>;
}

export function encodeTopicStatsTable(t: TopicStatsTable): Buffer {
  const value = {
    offsetTable: messageQueueMapValue(t.offsetTable, (o) => ({
      lastUpdateTimestamp: o.lastUpdateTimestamp,
      maxOffset: o.maxOffset,
      minOffset: o.minOffset,
    })),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

export function decodeTopicStatsTable(body: Buffer | undefined): {
  offsetTable: Array<[MessageQueue, TopicOffset]>;
} {
  const r = BodyReader.parse('TopicStatsTable', body);
  return {
    offsetTable: readMessageQueueMap(r.optional('offsetTable'), (o) => ({
      minOffset: o.optional('minOffset')?.long() ?? 0n,
      maxOffset: o.optional('maxOffset')?.long() ?? 0n,
      lastUpdateTimestamp: o.optional('lastUpdateTimestamp')?.long() ?? 0n,
    })),
  };
}
