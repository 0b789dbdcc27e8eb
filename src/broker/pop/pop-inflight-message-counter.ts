/**
 * Messages popped but neither acked nor revived, per `topic@group` and queue (upstream
 * PopInflightMessageCounter), for consumerProgress and the dashboard. POP_MESSAGE increments;
 * the revive service decrements when an ack really settles a message or when it revives one, and a
 * FIFO ack decrements at once. Unlike upstream, whose ACK_MESSAGE decrements for any ack (a forged or
 * repeated one too), only settled messages count down here. As upstream, pops from before this broker
 * started (`startTime`) are not counted down: they were never counted up.
 */
export class PopInflightMessageCounter {
  private readonly table = new Map<string, Map<number, number>>();

  constructor(private readonly startTime: number) {}

  incrementInFlightMessageNum(topic: string, group: string, queueId: number, num: number): void {
    if (!(num > 0)) return;
    const key = buildKey(topic, group);
    let queues = this.table.get(key);
    if (queues === undefined) {
      queues = new Map();
      this.table.set(key, queues);
    }
    queues.set(queueId, (queues.get(queueId) ?? 0) + num);
  }

  decrementInFlightMessageNum(
    topic: string,
    group: string,
    popTime: number,
    queueId: number,
    delta: number,
  ): void {
    if (popTime < this.startTime || !(delta > 0)) return;
    const key = buildKey(topic, group);
    const queues = this.table.get(key);
    const n = queues?.get(queueId);
    if (queues === undefined || n === undefined) return;
    if (n - delta <= 0) queues.delete(queueId);
    else queues.set(queueId, n - delta);
    if (queues.size === 0) this.table.delete(key);
  }

  clearInFlightMessageNumByGroupName(group: string): void {
    for (const key of [...this.table.keys()]) if (splitKey(key)?.[1] === group) this.table.delete(key);
  }

  clearInFlightMessageNumByTopicName(topic: string): void {
    for (const key of [...this.table.keys()]) if (splitKey(key)?.[0] === topic) this.table.delete(key);
  }

  clearInFlightMessageNum(topic: string, group: string, queueId: number): void {
    const key = buildKey(topic, group);
    const queues = this.table.get(key);
    if (queues === undefined) return;
    queues.delete(queueId);
    if (queues.size === 0) this.table.delete(key);
  }

  getGroupPopInFlightMessageNum(topic: string, group: string, queueId: number): number {
    return Math.max(0, this.table.get(buildKey(topic, group))?.get(queueId) ?? 0);
  }

  /** The sum over the queues of `topic@group`. */
  getTopicGroupInFlightMessageNum(topic: string, group: string): number {
    let sum = 0;
    for (const n of this.table.get(buildKey(topic, group))?.values() ?? []) sum += n;
    return sum;
  }
}

function buildKey(topic: string, group: string): string {
  return `${topic}@${group}`;
}

function splitKey(key: string): [string, string] | undefined {
  const parts = key.split('@');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}
