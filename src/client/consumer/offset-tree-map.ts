/**
 * Messages by queue offset, in offset order: what upstream keeps in a TreeMap<Long, MessageExt>.
 * Pulls append ever larger offsets, consumption removes from anywhere and orderly consumption puts
 * taken messages back in front, so a sorted key array plus a map serves every case; a queue holds
 * at most pullThresholdForQueue messages, so inserting or removing in the middle stays cheap.
 * Offsets are numbers here: a queue offset never nears 2^53.
 */
import type { MessageExt } from '../../common/message/message.js';

export class OffsetTreeMap {
  private readonly keys: number[] = [];
  private readonly values = new Map<number, MessageExt>();

  get size(): number {
    return this.keys.length;
  }

  isEmpty(): boolean {
    return this.keys.length === 0;
  }

  firstKey(): number | undefined {
    return this.keys[0];
  }

  lastKey(): number | undefined {
    return this.keys[this.keys.length - 1];
  }

  get(offset: number): MessageExt | undefined {
    return this.values.get(offset);
  }

  firstValue(): MessageExt | undefined {
    const k = this.keys[0];
    return k === undefined ? undefined : this.values.get(k);
  }

  /** Puts `msg` at `offset`; returns the message it replaced, if any (TreeMap.put). */
  put(offset: number, msg: MessageExt): MessageExt | undefined {
    const old = this.values.get(offset);
    this.values.set(offset, msg);
    if (old !== undefined) return old;
    const last = this.keys[this.keys.length - 1];
    if (last === undefined || offset > last) this.keys.push(offset);
    else this.keys.splice(this.insertionPoint(offset), 0, offset);
    return undefined;
  }

  remove(offset: number): MessageExt | undefined {
    const old = this.values.get(offset);
    if (old === undefined) return undefined;
    this.values.delete(offset);
    const first = this.keys[0];
    if (first === offset) this.keys.shift();
    else this.keys.splice(this.insertionPoint(offset), 1);
    return old;
  }

  pollFirst(): [number, MessageExt] | undefined {
    const k = this.keys.shift();
    if (k === undefined) return undefined;
    const v = this.values.get(k) as MessageExt;
    this.values.delete(k);
    return [k, v];
  }

  /** Values in offset order. */
  *valuesInOrder(): IterableIterator<MessageExt> {
    for (const k of this.keys) yield this.values.get(k) as MessageExt;
  }

  clear(): void {
    this.keys.length = 0;
    this.values.clear();
  }

  /** Index of the first key >= offset. */
  private insertionPoint(offset: number): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.keys[mid] as number) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
