/**
 * The next queue offset of every (topic, queueId) (upstream CommitLog.topicQueueTable): taken at
 * append, raised by recovery scans, and replaced from the consume queues when the store loads.
 */
export class TopicQueueTable {
  private readonly table = new Map<string, Map<number, number>>();

  private queues(topic: string): Map<number, number> {
    let queues = this.table.get(topic);
    if (queues === undefined) {
      queues = new Map();
      this.table.set(topic, queues);
    }
    return queues;
  }

  /** Keyed `topic-queueId`, as upstream. */
  toMap(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [topic, queues] of this.table) {
      for (const [queueId, next] of queues) out.set(`${topic}-${queueId}`, next);
    }
    return out;
  }

  /** Replaces every entry from a `topic-queueId`-keyed map; malformed keys are skipped. */
  replace(table: ReadonlyMap<string, number | bigint>): void {
    this.table.clear();
    for (const [key, next] of table) {
      const dash = key.lastIndexOf('-');
      const queueId = Number(key.slice(dash + 1));
      if (dash <= 0 || !Number.isInteger(queueId)) continue;
      this.set(key.slice(0, dash), queueId, next);
    }
  }

  set(topic: string, queueId: number, next: number | bigint): void {
    this.queues(topic).set(queueId, Number(next));
  }

  get(topic: string, queueId: number): number {
    return this.table.get(topic)?.get(queueId) ?? 0;
  }

  remove(topic: string, queueId: number): void {
    const queues = this.table.get(topic);
    queues?.delete(queueId);
    if (queues?.size === 0) this.table.delete(topic);
  }

  /** Reserves `count` consecutive offsets and returns the first. */
  take(topic: string, queueId: number, count: number): number {
    const queues = this.queues(topic);
    const current = queues.get(queueId) ?? 0;
    queues.set(queueId, current + count);
    return current;
  }

  /** Raises the next offset to at least `next` (recovery: one past every scanned record). */
  raise(topic: string, queueId: number, next: number): void {
    const queues = this.queues(topic);
    if (next > (queues.get(queueId) ?? 0)) queues.set(queueId, next);
  }
}
