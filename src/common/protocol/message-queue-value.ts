/**
 * MessageQueue inside JSON bodies (`{"brokerName":..,"queueId":..,"topic":..}`, fastjson's sorted
 * bean layout) and the order Java iterates a `HashSet<MessageQueue>` in, which decides the order such
 * sets are written in.
 */
import { type FjEmittableRecord, type JavaKeyType, javaHashMapIterationOrder } from '../fastjson/index.js';
import { MessageQueue } from '../message/message-queue.js';
import type { BodyReader } from './body-reader.js';

export function messageQueueValue(mq: MessageQueue): FjEmittableRecord {
  return { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic };
}

/**
 * Topic and broker name must be present (Java would keep nulls and fail later on them); a missing
 * queueId is 0, the Java field's default.
 */
export function readMessageQueue(r: BodyReader): MessageQueue {
  return new MessageQueue(
    r.field('topic').string(),
    r.field('brokerName').string(),
    r.optional('queueId')?.int() ?? 0,
  );
}

/** A JSON array of queues as a set: later duplicates dropped, as HashSet.add keeps the first. */
export function readMessageQueueSet(r: BodyReader | undefined): MessageQueue[] {
  if (r === undefined) return [];
  const seen = new Set<string>();
  const out: MessageQueue[] = [];
  for (const item of r.array()) {
    const mq = readMessageQueue(item);
    if (seen.has(mq.key)) continue;
    seen.add(mq.key);
    out.push(mq);
  }
  return out;
}

/** MessageQueue as a HashMap key: its Java hashCode, equals and compareTo (it is Comparable). */
export const MESSAGE_QUEUE_KEY: JavaKeyType<MessageQueue> = {
  hashCode: (mq) => mq.hashCode(),
  equals: (a, b) => a.equals(b),
  compareTo: MessageQueue.compare,
};

/**
 * Iteration order of a `HashSet<MessageQueue>` filled in the given order: `new HashSet<>()` (what
 * fastjson builds when it reads a set) unless `initialCapacity` names the constructor's argument.
 */
export function javaMessageQueueSetOrder(
  mqs: readonly MessageQueue[],
  initialCapacity?: number,
): MessageQueue[] {
  if (mqs.length < 2) return [...mqs];
  return javaHashMapIterationOrder(
    mqs,
    MESSAGE_QUEUE_KEY,
    initialCapacity === undefined ? undefined : { initialCapacity },
  );
}
