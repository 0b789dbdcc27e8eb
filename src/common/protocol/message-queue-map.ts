/**
 * JSON bodies holding a `HashMap<MessageQueue, V>` (ConsumeStats, TopicStatsTable): fastjson writes
 * each key bare, as the queue's own object (`{{"brokerName":"b","queueId":0,"topic":"t"}:{..}}`), or
 * in the standard form as that object's JSON text in a string. Entries are kept as an ordered list:
 * a JS Map cannot key by value.
 */
import { FjMap, javaHashMapIterationOrder, parseFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { MESSAGE_QUEUE_KEY, messageQueueValue, readMessageQueue } from './message-queue-value.js';

export type MessageQueueEntries<V> = ReadonlyArray<readonly [MessageQueue, V]>;

/**
 * The order Java iterates a `new HashMap<MessageQueue, V>()` filled with `entries` in the given
 * order: the order fastjson writes it in. A queue put twice keeps its first place and last value.
 */
export function javaMessageQueueMapOrder<V>(entries: MessageQueueEntries<V>): Array<[MessageQueue, V]> {
  const last = new Map<string, readonly [MessageQueue, V]>();
  for (const e of entries) last.set(e[0].key, e);
  const order = javaHashMapIterationOrder(
    entries.map((e) => e[0]),
    MESSAGE_QUEUE_KEY,
  );
  return order.map((mq) => {
    const e = last.get(mq.key) as readonly [MessageQueue, V];
    return [e[0], e[1]];
  });
}

/** An FjMap to emit: queue objects as keys, values as `value` makes them, in the given order. */
export function messageQueueMapValue<V, E>(entries: MessageQueueEntries<V>, value: (v: V) => E) {
  return new FjMap(entries.map(([mq, v]) => [messageQueueValue(mq), value(v)] as const));
}

/** Reads such a map: bare object keys, or (standard form) keys holding the queue's JSON text. */
export function readMessageQueueMap<V>(
  r: BodyReader | undefined,
  value: (r: BodyReader) => V,
): Array<[MessageQueue, V]> {
  if (r === undefined) return [];
  const out: Array<[MessageQueue, V]> = [];
  const v = r.value;
  if (v instanceof FjMap) {
    v.entries.forEach(([k, x], i) => {
      const key = new BodyReader(r.body, `${r.path}{key ${i}}`, k);
      out.push([readMessageQueue(key), value(new BodyReader(r.body, `${r.path}{value ${i}}`, x))]);
    });
    return out;
  }
  for (const [text, x] of r.entries()) out.push([readMessageQueue(keyReader(r, text)), value(x)]);
  return out;
}

function keyReader(r: BodyReader, text: string): BodyReader {
  try {
    return new BodyReader(
      r.body,
      `${r.path}{key}`,
      parseFastjson(Buffer.from(text, 'utf8'), { what: r.body }),
    );
  } catch {
    return r.fail(`key ${JSON.stringify(text.slice(0, 64))} is not a MessageQueue`);
  }
}
