/**
 * PopMessageProcessor.QueueLockManager: one pop at a time per `topic@group@queueId`. A pop that finds
 * the queue locked skips it (its backlog only counts into restNum), as upstream's tryLock does. Reads
 * and the checkpoint write are awaited, so two pops of one queue would otherwise interleave and hand
 * out the same offsets.
 */
export class QueueLockManager {
  private readonly locked = new Set<string>();

  tryLock(key: string): boolean {
    if (this.locked.has(key)) return false;
    this.locked.add(key);
    return true;
  }

  unLock(key: string): void {
    this.locked.delete(key);
  }

  get size(): number {
    return this.locked.size;
  }
}
