/**
 * The broker's revive side of POP in one place: the revive topic, one PopReviveService per revive
 * queue (`reviveQueueNum`), the in-flight counter and the ack/revive counters. A master runs the
 * services; a slave keeps them stopped (upstream: shouldRunPopRevive = brokerId == 0).
 */
import { PermName } from '../../common/constants.js';
import type { Logger } from '../../common/logger.js';
import { buildClusterReviveTopic } from '../../common/pop/index.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { PopInflightMessageCounter } from './pop-inflight-message-counter.js';
import { PopReviveService } from './pop-revive-service.js';
import { PopReviveStats } from './pop-revive-stats.js';
import type { PopReviveView } from './pop-revive-view.js';

export class PopReviveServices implements PopReviveView {
  readonly reviveTopic: string;
  readonly stats = new PopReviveStats();
  readonly inflight: PopInflightMessageCounter;
  readonly services: readonly PopReviveService[];

  constructor(
    private readonly broker: BrokerContext,
    logger: Logger,
  ) {
    this.reviveTopic = buildClusterReviveTopic(broker.config.brokerClusterName);
    this.inflight = new PopInflightMessageCounter(broker.clock.now());
    const services: PopReviveService[] = [];
    for (let i = 0; i < broker.config.reviveQueueNum; i++) {
      services.push(
        new PopReviveService({
          broker,
          reviveTopic: this.reviveTopic,
          queueId: i,
          stats: this.stats,
          inflight: this.inflight,
          clock: broker.clock,
          logger,
        }),
      );
    }
    this.services = services;
  }

  get reviveQueueNum(): number {
    return this.services.length;
  }

  /**
   * The revive topic, created on the first record written (a system topic by its `rmq_sys_` name,
   * one queue per revive service). Upstream 5.x adds it to the system topics at start; created
   * lazily here, a broker that never sees POP keeps a 4.x topic table.
   */
  ensureReviveTopic(): void {
    if (this.broker.topicConfigManager.selectTopicConfig(this.reviveTopic) !== undefined) return;
    this.broker.topicConfigManager.createTopicInSendMessageBackMethod(
      this.reviveTopic,
      this.services.length,
      PermName.PERM_READ | PermName.PERM_WRITE,
      0,
    );
  }

  start(): void {
    for (const s of this.services) s.start();
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.services.map((s) => s.shutdown()));
  }

  /** One round of every service now, in parallel (tests). */
  async reviveNow(): Promise<void> {
    await Promise.all(this.services.map((s) => s.reviveNow()));
  }

  /** Un-acked messages of pending checkpoints for `topic` and `group` over every revive queue. */
  pendingUnacked(topic: string, group: string): number {
    let n = 0;
    for (const s of this.services) n += s.unackedByTopicGroup().get(`${topic}@${group}`) ?? 0;
    return n;
  }
}
