/**
 * The pending checkpoints of one revive queue (the in-memory half of decision 4 of the POP design):
 * CK records add a checkpoint, ACK / batch-ACK records set its bits, a fully acked checkpoint is
 * dropped, and what is still pending at popTime + invisibleTime is handed to the revive service.
 * Pure: no store, no clock. Records are applied in revive-queue order, so a restart that replays the
 * queue from the smallest pending CK's offset rebuilds the same table.
 *
 * Upstream (PopReviveService.consumeReviveMessage) matches an ack to its CK by
 * topic + group + queueId + startOffset + popTime + brokerName; so do we. Beyond upstream, an ack
 * whose CK bit is already set (or whose CK is gone) settles the message in the latest checkpoint
 * CHANGE_MESSAGE_INVISIBLETIME wrote in its place (the CK record names the one it replaces): an ack
 * with the handle from before a change then still settles the message (the gRPC endpoint's clients
 * ack with either handle; the official proxy gets there by swapping handles in its
 * ReceiptHandleManager, apache/rocketmq#9583). Only the exact handle that was changed reaches the
 * new checkpoint, so a forged handle still settles nothing; and only a consumer's ack does: the
 * change's own ack of the old checkpoint never moves on (a change after the old checkpoint was
 * revived leaves two copies, as upstream).
 */

/** A checkpoint as the revive queue holds it (upstream PopCheckPoint, offsets as bigint). */
export interface ReviveCheckPoint {
  readonly topic: string;
  readonly group: string;
  readonly queueId: number;
  /** Queue offset of the first message of the pop (the handle's ckQueueOffset). */
  readonly startOffset: bigint;
  readonly popTime: number;
  readonly invisibleTime: number;
  /** Bits already acked when the CK was written (upstream writes 0). */
  readonly bitMap: number;
  /** Messages in the checkpoint (≤ 32). */
  readonly num: number;
  /** Offsets of the messages relative to startOffset; empty = startOffset + 0..num-1. */
  readonly queueOffsetDiff: readonly number[];
  readonly brokerName: string;
  /** The merge key of the checkpoint this one replaces (written by CHANGE_MESSAGE_INVISIBLETIME; ours). */
  readonly previous?: string | undefined;
}

/** An ACK (one offset) or batch ACK (several) record. */
export interface ReviveAck {
  readonly topic: string;
  readonly group: string;
  readonly queueId: number;
  readonly startOffset: bigint;
  readonly popTime: number;
  readonly brokerName: string;
  readonly ackOffsets: readonly bigint[];
  /**
   * Written by the revive service itself after it re-put the messages (so a replay after a restart
   * does not revive them again): never settles a successor checkpoint.
   */
  readonly reviveMarker?: boolean;
  /** The ack of the old checkpoint CHANGE_MESSAGE_INVISIBLETIME writes (not counted as a consumer's ack). */
  readonly changeAck?: boolean;
}

export interface PendingCheckPoint {
  readonly ck: ReviveCheckPoint;
  /** Offset of the CK record in the revive queue. */
  readonly reviveOffset: bigint;
  /** popTime + invisibleTime, saturated to a safe integer. */
  readonly reviveTime: number;
  /** Acked bits (bit j = message j of the checkpoint). */
  bits: number;
}

export interface AckOutcome {
  /** Bits newly set. */
  readonly acked: number;
  /** Offsets whose checkpoint is unknown, gone (revived) or already acked: nothing to settle. */
  readonly unknown: number;
  /** Checkpoints that became fully acked and were dropped. */
  readonly completed: readonly PendingCheckPoint[];
}

/** 32 bits: upstream's bitMap is an int and a checkpoint holds at most 32 messages. */
export const MAX_CHECKPOINT_MESSAGES = 32;

/** A checkpoint's merge key (PopReviveService's mergeKey). */
export function checkPointKey(ck: ReviveCheckPoint): string {
  return mergeKey(ck.topic, ck.group, ck.queueId, ck.startOffset, ck.popTime, ck.brokerName);
}

export function mergeKey(
  topic: string,
  group: string,
  queueId: number,
  startOffset: bigint,
  popTime: number,
  brokerName: string,
): string {
  return `${topic}@${group}@${queueId}@${startOffset}@${popTime}@${brokerName}`;
}

function allBits(num: number): number {
  return num >= MAX_CHECKPOINT_MESSAGES ? -1 : (1 << num) - 1;
}

/** Upstream PopCheckPoint.ackOffsetByIndex: the queue offset of message `index`. */
export function ackOffsetByIndex(ck: ReviveCheckPoint, index: number): bigint {
  const diff = ck.queueOffsetDiff;
  if (diff.length === 0) return ck.startOffset + BigInt(index);
  return ck.startOffset + BigInt(diff[index] ?? 0);
}

/** Upstream PopCheckPoint.indexOfAck: which message of the checkpoint `ackOffset` is, or -1. */
export function indexOfAck(ck: ReviveCheckPoint, ackOffset: bigint): number {
  if (ackOffset < ck.startOffset) return -1;
  const delta = ackOffset - ck.startOffset;
  if (delta > BigInt(0x7fffffff)) return -1;
  const d = Number(delta);
  if (ck.queueOffsetDiff.length === 0) return d < ck.num ? d : -1;
  const i = ck.queueOffsetDiff.indexOf(d);
  return i < ck.num ? i : -1;
}

/** Whether message `index` is acked in `bits`. */
export function isAcked(bits: number, index: number): boolean {
  return (bits & (1 << index)) !== 0;
}

export function reviveTimeOf(ck: ReviveCheckPoint): number {
  const t = ck.popTime + ck.invisibleTime;
  return Number.isSafeInteger(t) ? t : t > 0 ? Number.MAX_SAFE_INTEGER : ck.popTime;
}

export class PopReviveState {
  /** By merge key, in revive-queue order (records are applied in order). */
  private readonly pending = new Map<string, PendingCheckPoint>();
  /** Change chains: first checkpoint's key → the latest one written in its place, and its members. */
  private readonly chains = new Map<string, { latest: string; members: string[] }>();
  /** Member key → first key of its chain. */
  private readonly rootOf = new Map<string, string>();

  get size(): number {
    return this.pending.size;
  }

  /** Adds a CK read at `reviveOffset`; false when it holds nothing to wait for (or is a duplicate). */
  addCheckPoint(ck: ReviveCheckPoint, reviveOffset: bigint): boolean {
    const num = Math.min(Math.max(ck.num | 0, 0), MAX_CHECKPOINT_MESSAGES);
    if (num === 0) return false;
    const key = checkPointKey(ck);
    if (this.pending.has(key)) return false;
    const full = allBits(num);
    const bits = ck.bitMap & full;
    if (bits === full) return false;
    const normalized: ReviveCheckPoint = num === ck.num ? ck : { ...ck, num };
    const entry: PendingCheckPoint = { ck: normalized, reviveOffset, reviveTime: reviveTimeOf(ck), bits };
    this.pending.set(key, entry);
    if (ck.previous !== undefined) this.link(ck.previous, key);
    return true;
  }

  applyAck(ack: ReviveAck): AckOutcome {
    let acked = 0;
    let unknown = 0;
    const completed: PendingCheckPoint[] = [];
    const key = mergeKey(ack.topic, ack.group, ack.queueId, ack.startOffset, ack.popTime, ack.brokerName);
    for (const offset of ack.ackOffsets) {
      let target = this.pending.get(key);
      let index = target === undefined ? -1 : indexOfAck(target.ck, offset);
      if (target === undefined || index < 0 || isAcked(target.bits, index)) {
        // Only a consumer's ack follows a change: the change's own ack of the old checkpoint, replayed
        // after a restart that no longer has the old checkpoint, must not settle the new one.
        target = ack.reviveMarker === true || ack.changeAck === true ? undefined : this.successor(key);
        index = target === undefined ? -1 : indexOfAck(target.ck, offset);
        if (target !== undefined && index >= 0 && isAcked(target.bits, index)) index = -1;
      }
      if (target === undefined || index < 0) {
        unknown++;
        continue;
      }
      target.bits |= 1 << index;
      acked++;
      if (target.bits === allBits(target.ck.num)) {
        this.remove(target);
        completed.push(target);
      }
    }
    return { acked, unknown, completed };
  }

  private link(previous: string, key: string): void {
    const root = this.rootOf.get(previous) ?? previous;
    let chain = this.chains.get(root);
    if (chain === undefined) {
      chain = { latest: previous, members: [previous] };
      this.chains.set(root, chain);
      this.rootOf.set(previous, root);
    }
    chain.latest = key;
    chain.members.push(key);
    this.rootOf.set(key, root);
  }

  /** The pending checkpoint that replaced the one named `key` (through any number of changes). */
  private successor(key: string): PendingCheckPoint | undefined {
    const root = this.rootOf.get(key);
    if (root === undefined) return undefined;
    const latest = this.chains.get(root)?.latest;
    if (latest === undefined || latest === key) return undefined;
    return this.pending.get(latest);
  }

  /** Pending checkpoints due at `now`, in revive-queue order. */
  due(now: number): PendingCheckPoint[] {
    const out: PendingCheckPoint[] = [];
    for (const p of this.pending.values()) if (p.reviveTime <= now) out.push(p);
    return out;
  }

  /** Drops a checkpoint once its un-acked messages were re-put. */
  remove(p: PendingCheckPoint): void {
    const key = mergeKey(
      p.ck.topic,
      p.ck.group,
      p.ck.queueId,
      p.ck.startOffset,
      p.ck.popTime,
      p.ck.brokerName,
    );
    if (this.pending.get(key) !== p) return;
    this.pending.delete(key);
    // The chain ends with its latest checkpoint: older handles have nothing left to settle.
    const root = this.rootOf.get(key);
    const chain = root === undefined ? undefined : this.chains.get(root);
    if (root !== undefined && chain?.latest === key) {
      for (const m of chain.members) this.rootOf.delete(m);
      this.chains.delete(root);
    }
  }

  /** The smallest revive-queue offset of a pending CK (the offset a restart must replay from). */
  minPendingOffset(): bigint | undefined {
    // Insertion order is revive-queue order.
    for (const p of this.pending.values()) return p.reviveOffset;
    return undefined;
  }

  /** Un-acked messages of the pending checkpoints, per `topic@group`. */
  unackedByTopicGroup(): Map<string, number> {
    const out = new Map<string, number>();
    for (const p of this.pending.values()) {
      let n = 0;
      for (let j = 0; j < p.ck.num; j++) if (!isAcked(p.bits, j)) n++;
      const k = `${p.ck.topic}@${p.ck.group}`;
      out.set(k, (out.get(k) ?? 0) + n);
    }
    return out;
  }
}
