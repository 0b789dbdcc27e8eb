/**
 * POP counters for metrics and the dashboard: pops answered with messages, messages popped and
 * checkpoints written, per `group@topic` and in total. Read-only to everyone but the POP processor.
 */
export interface PopCounts {
  /** POP_MESSAGE requests answered with at least one message. */
  pops: number;
  /** Messages returned by those pops. */
  messages: number;
  /** Checkpoints written to the revive topic. */
  checkpoints: number;
}

export class PopStats {
  private readonly byGroupTopic = new Map<string, PopCounts>();
  readonly total: PopCounts = { pops: 0, messages: 0, checkpoints: 0 };

  private entry(group: string, topic: string): PopCounts {
    const key = `${group}@${topic}`;
    let c = this.byGroupTopic.get(key);
    if (c === undefined) {
      c = { pops: 0, messages: 0, checkpoints: 0 };
      this.byGroupTopic.set(key, c);
    }
    return c;
  }

  recordPop(group: string, topic: string, messages: number): void {
    const c = this.entry(group, topic);
    c.pops++;
    c.messages += messages;
    this.total.pops++;
    this.total.messages += messages;
  }

  recordCheckpoint(group: string, topic: string): void {
    this.entry(group, topic).checkpoints++;
    this.total.checkpoints++;
  }

  /** Counts of `group@topic` (topic = the topic asked for, not its retry topic). */
  get(group: string, topic: string): Readonly<PopCounts> | undefined {
    return this.byGroupTopic.get(`${group}@${topic}`);
  }

  /** Every `group@topic` with its counts. */
  entries(): IterableIterator<[string, Readonly<PopCounts>]> {
    return this.byGroupTopic.entries();
  }
}
