/** Upstream `MessageQueue`: the (topic, brokerName, queueId) triple clients rebalance over. */

import { javaStringHashCode } from '../java-hash.js';
import { javaStringCompare } from './java-lang.js';

export class MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  /** The Map key, built once: the client looks queues up per message (private, so deep equality ignores it). */
  #key: string | undefined = undefined;

  constructor(topic: string, brokerName: string, queueId: number) {
    this.topic = topic;
    this.brokerName = brokerName;
    this.queueId = queueId;
  }

  /**
   * Java's `compareTo`, value for value: topic, then brokerName (UTF-16 code unit order), then
   * `queueId - o.queueId` with int overflow. Rebalance must sort exactly like Java.
   */
  compareTo(o: MessageQueue): number {
    return MessageQueue.compare(this, o);
  }

  static compare(a: MessageQueue, b: MessageQueue): number {
    const t = javaStringCompare(a.topic, b.topic);
    if (t !== 0) return t;
    const n = javaStringCompare(a.brokerName, b.brokerName);
    if (n !== 0) return n;
    return (a.queueId - b.queueId) | 0;
  }

  equals(o: MessageQueue): boolean {
    return this.topic === o.topic && this.brokerName === o.brokerName && this.queueId === o.queueId;
  }

  /**
   * A Map key naming this queue. The topic's length prefix keeps it unambiguous even for names that
   * contain the separator.
   */
  get key(): string {
    this.#key ??= `${this.topic.length}:${this.topic}|${this.brokerName}|${this.queueId}`;
    return this.#key;
  }

  /** Java's `hashCode()`. */
  hashCode(): number {
    let r = 1;
    r = (Math.imul(31, r) + javaStringHashCode(this.brokerName)) | 0;
    r = (Math.imul(31, r) + this.queueId) | 0;
    r = (Math.imul(31, r) + javaStringHashCode(this.topic)) | 0;
    return r;
  }

  /** Java's `toString()` (used by some allocation strategies and in logs). */
  toString(): string {
    return `MessageQueue [topic=${this.topic}, brokerName=${this.brokerName}, queueId=${this.queueId}]`;
  }
}
