/**
 * One revive queue's service (upstream PopReviveService, decision 4 of the POP design): every
 * `reviveInterval` it reads the queue of `rmq_sys_REVIVE_LOG_<cluster>` from where it stopped (at
 * start: the CID_RMQ_SYS_REVIVE_GROUP consumer offset), applies CK and ACK records to the pending
 * table, re-puts each un-acked message of a checkpoint whose popTime + invisibleTime has passed, and
 * commits the revive offset as the smallest revive-queue offset of a CK still pending (or the read
 * position when none is), so a restart replays from there and rebuilds the table.
 *
 * Differences from upstream: CK and ACK records are plain messages written at once (no timer store),
 * so the queue is in pop order and a due checkpoint is revived wherever it sits; after a re-put the
 * service appends a batch-ack record for the revived bits (a "revive marker"), so a replay after a
 * restart does not revive them again; and a message whose reconsumeTimes reached the group's
 * retryMaxTimes goes to `%DLQ%<group>` (upstream's broker never dead-letters a POP message: its
 * proxy does, at receive time, and the remoting push consumer drops it after 2 × 7200 s).
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { PopAckConstants } from '../../common/pop/index.js';
import { GetMessageStatus } from '../../store/message-store.js';
import type { BrokerContext } from '../processor/broker-context.js';
import type { PopInflightMessageCounter } from './pop-inflight-message-counter.js';
import { ackOffsetByIndex, isAcked, type PendingCheckPoint, PopReviveState } from './pop-revive-state.js';
import type { PopReviveStats } from './pop-revive-stats.js';
import { decodeReviveRecord, reviveMarkerMessage, stored } from './revive-records.js';
import { reviveOne } from './revive-retry.js';

const REVIVE_GROUP = PopAckConstants.REVIVE_GROUP;
/** Records read from the revive queue per store read (upstream reads 32 at a time). */
const REVIVE_BATCH = 32;

export interface PopReviveServiceOptions {
  readonly broker: BrokerContext;
  readonly reviveTopic: string;
  readonly queueId: number;
  readonly stats: PopReviveStats;
  readonly inflight: PopInflightMessageCounter;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class PopReviveService {
  readonly queueId: number;
  private readonly state = new PopReviveState();
  /** Next revive-queue offset to read; undefined until the first round. */
  private readOffset: bigint | undefined;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly o: PopReviveServiceOptions) {
    this.queueId = o.queueId;
  }

  /** Checkpoints still waiting for an ack or their revive time. */
  get pendingCheckPoints(): number {
    return this.state.size;
  }

  /** Un-acked messages of pending checkpoints per `topic@group` (consumerProgress, dashboard). */
  unackedByTopicGroup(): Map<string, number> {
    return this.state.unackedByTopicGroup();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule();
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  /** Runs one round now (tests; the timer runs them otherwise). Rounds never overlap. */
  reviveNow(): Promise<void> {
    const next = (this.running ?? Promise.resolve()).then(() => this.round());
    // The chain never rejects, so a failed round does not fail the next one.
    this.running = next.catch(() => undefined);
    return next;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.reviveNow()
        .catch((error: unknown) => {
          this.o.logger.warn('revive round failed', { reviveQid: this.queueId }, error);
        })
        .finally(() => this.schedule());
    }, this.o.broker.config.reviveInterval);
  }

  private async round(): Promise<void> {
    await this.readNew();
    await this.reviveDue();
    this.commitOffset();
  }

  private startOffset(): bigint {
    const { broker, reviveTopic, queueId } = this.o;
    const committed = broker.consumerOffsetManager.queryOffset(REVIVE_GROUP, reviveTopic, queueId);
    const min = broker.messageStore.getMinOffsetInQueue(reviveTopic, queueId);
    // bigint: no Math.max. A committed offset below the queue's first record (retention) moves up.
    if (committed < min) return min;
    return committed;
  }

  /** Applies every record written since the last round, in queue order. */
  private async readNew(): Promise<void> {
    const { broker, reviveTopic, queueId } = this.o;
    let offset = this.readOffset ?? this.startOffset();
    for (;;) {
      // Nothing new (the usual case on a broker without POP): no store read, no get counted.
      if (broker.messageStore.getMaxOffsetInQueue(reviveTopic, queueId) <= offset) break;
      const r = await broker.messageStore.getMessage(
        REVIVE_GROUP,
        reviveTopic,
        queueId,
        offset,
        REVIVE_BATCH,
      );
      if (r.status === GetMessageStatus.FOUND) {
        // POP_MESSAGE writes checkpoints without creating the topic; it exists once there are records.
        broker.popRevive.ensureReviveTopic();
        for (let i = 0; i < r.messages.length; i++) {
          this.apply(r.messages[i]!, r.messageQueueOffsets[i] ?? offset);
        }
        if (r.nextBeginOffset <= offset) break;
        offset = r.nextBeginOffset;
        continue;
      }
      // Records removed by retention (OFFSET_TOO_SMALL) or a gap: move on as the store says.
      if (r.status === GetMessageStatus.OFFSET_TOO_SMALL || r.status === GetMessageStatus.OFFSET_FOUND_NULL) {
        if (r.nextBeginOffset > offset) {
          offset = r.nextBeginOffset;
          continue;
        }
      }
      break;
    }
    this.readOffset = offset;
  }

  private apply(record: Buffer, reviveOffset: bigint): void {
    const { stats, inflight, logger } = this.o;
    let decoded: ReturnType<typeof decodeReviveRecord>;
    try {
      decoded = decodeReviveRecord(decodeMessage(record, 0));
    } catch (error) {
      logger.warn('unreadable revive record skipped', { reviveQid: this.queueId, reviveOffset }, error);
      return;
    }
    if (decoded === undefined) return;
    if (decoded.kind === 'ck') {
      stats.checkPoints++;
      this.state.addCheckPoint(decoded.ck, reviveOffset);
      return;
    }
    const ack = decoded.ack;
    const outcome = this.state.applyAck(ack);
    if (ack.reviveMarker === true) return;
    if (ack.changeAck !== true) {
      stats.acked += outcome.acked;
      stats.lateOrUnknownAcks += outcome.unknown;
    }
    if (outcome.acked > 0) {
      inflight.decrementInFlightMessageNum(ack.topic, ack.group, ack.popTime, ack.queueId, outcome.acked);
    }
  }

  private async reviveDue(): Promise<void> {
    const now = this.o.clock.now();
    for (const p of this.state.due(now)) {
      if (this.stopped) return;
      if (await this.revive(p)) this.state.remove(p);
    }
  }

  /** Re-puts the un-acked messages of `p`; false when the store refused one (retried next round). */
  private async revive(p: PendingCheckPoint): Promise<boolean> {
    const { broker, stats, inflight, logger } = this.o;
    const ck = p.ck;
    const revivedOffsets: bigint[] = [];
    let ok = true;
    for (let j = 0; j < ck.num; j++) {
      if (isAcked(p.bits, j)) continue;
      const offset = ackOffsetByIndex(ck, j);
      const outcome = await reviveOne(broker, ck, offset);
      switch (outcome) {
        case 'retry':
          stats.revived++;
          break;
        case 'dlq':
          stats.deadLettered++;
          break;
        case 'missing':
          stats.reviveMissing++;
          break;
        case 'skipped':
          stats.reviveSkipped++;
          break;
        case 'failed':
          stats.reviveFailures++;
          ok = false;
          continue;
      }
      p.bits |= 1 << j;
      revivedOffsets.push(offset);
      inflight.decrementInFlightMessageNum(ck.topic, ck.group, ck.popTime, ck.queueId, 1);
    }
    if (revivedOffsets.length > 0) {
      const marker = reviveMarkerMessage(broker, this.o.reviveTopic, this.queueId, ck, revivedOffsets);
      const put = await broker.messageStore.putMessage(marker);
      if (!stored(put)) {
        // The bits are set in memory; only a restart before the next CK commit could revive them again.
        logger.warn('revive marker not stored', { reviveQid: this.queueId, status: put.putMessageStatus });
      }
    }
    return ok;
  }

  private commitOffset(): void {
    const { broker, reviveTopic, queueId } = this.o;
    const offset = this.state.minPendingOffset() ?? this.readOffset;
    if (offset === undefined) return;
    const current = broker.consumerOffsetManager.queryOffset(REVIVE_GROUP, reviveTopic, queueId);
    // Nothing read yet (offset 0, nothing committed): no entry for the revive group, as upstream,
    // whose offset tables hold it only once the queue moved.
    if (offset !== current && (current >= 0n || offset > 0n)) {
      broker.consumerOffsetManager.commitOffset('127.0.0.1', REVIVE_GROUP, reviveTopic, queueId, offset);
    }
  }
}
