/**
 * The POP_MESSAGE side of the broker in one place (`broker.pop`): the FIFO order state
 * (ConsumerOrderInfoManager), the long polling of pops, the per-queue pop locks, the pop counters,
 * and their wiring -- message arrivals (the store's dispatch, as the pull long polling gets them) and
 * FIFO unblocks wake parked pops; a woken pop is re-run and answered.
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { BrokerConfig } from '../broker-config.js';
import type { ConfigFileIO } from '../config-manager.js';
import type { BrokerMessageStore } from '../message-store.js';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager.js';
import type { TopicConfigManager } from '../topic/topic-config-manager.js';
import { ConsumerOrderInfoManager } from './consumer-order-info-manager.js';
import { PopLongPollingService } from './pop-long-polling-service.js';
import type { PopRequest } from './pop-request.js';
import { PopStats } from './pop-stats.js';
import { QueueLockManager } from './queue-lock-manager.js';

export interface PopServicesOptions {
  readonly config: BrokerConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly io?: ConfigFileIO | undefined;
  readonly messageStore: BrokerMessageStore;
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig'>;
  readonly subscriptionGroupManager: Pick<SubscriptionGroupManager, 'subscriptionGroupTable'>;
  /** Re-runs a woken pop and answers it (the POP processor's executeRequestWhenWakeup). */
  readonly wakeUp: (request: PopRequest) => void;
  /** The same for NOTIFICATION requests. */
  readonly wakeUpNotification: (request: PopRequest) => void;
}

export class PopServices {
  readonly consumerOrderInfoManager: ConsumerOrderInfoManager;
  readonly popLongPollingService: PopLongPollingService;
  /** NOTIFICATION's own long polling (upstream's NotificationProcessor has one, newest woken first). */
  readonly notificationPollingService: PopLongPollingService;
  readonly queueLockManager = new QueueLockManager();
  readonly popStats = new PopStats();
  /** Upstream ckMessageNumber: spreads checkpoints over the revive queues round-robin. */
  private ckMessageNumber = 0;

  constructor(options: PopServicesOptions) {
    const { config, logger, io } = options;
    const broker = options;
    this.popLongPollingService = new PopLongPollingService({
      config,
      clock: options.clock,
      logger: logger.child('longPolling'),
      wakeUp: options.wakeUp,
    });
    this.notificationPollingService = new PopLongPollingService({
      config,
      clock: options.clock,
      logger: logger.child('notification'),
      wakeUp: options.wakeUpNotification,
      notifyLast: true,
    });
    this.consumerOrderInfoManager = new ConsumerOrderInfoManager({
      storePathRootDir: config.storePathRootDir,
      logger: logger.child('orderInfo'),
      ...(io === undefined ? {} : { io }),
      clock: options.clock,
      topicReadQueueNums: (topic) => broker.topicConfigManager.selectTopicConfig(topic)?.readQueueNums,
      groupExists: (group) => broker.subscriptionGroupManager.subscriptionGroupTable.has(group),
      onLockFree: (topic, group, queueId) => {
        if (!config.enableNotifyAfterPopOrderLockRelease) return;
        for (const service of [this.popLongPollingService, this.notificationPollingService]) {
          service.notifyQueue(topic, -1, group);
          service.notifyQueue(topic, queueId, group);
        }
      },
    });
    broker.messageStore.onMessageArrived(
      (dispatch) => {
        if (config.brokerRole === 'SLAVE') return;
        this.popLongPollingService.notifyMessageArriving(
          dispatch.topic,
          dispatch.queueId,
          dispatch.tagsCode,
          () => broker.messageStore.selectOneMessageByOffset(dispatch.commitLogOffset),
        );
      },
      () => this.popLongPollingService.totalPollingNum > 0,
    );
  }

  /** The revive queue of the next checkpoint. */
  nextReviveQid(reviveQueueNum: number): number {
    const qid = this.ckMessageNumber % reviveQueueNum;
    this.ckMessageNumber = (this.ckMessageNumber + 1) % 0x7fffffff;
    return qid;
  }

  async load(): Promise<void> {
    await this.consumerOrderInfoManager.load();
  }

  start(): void {
    this.popLongPollingService.start();
    this.notificationPollingService.start();
  }

  /** Answers every parked pop and writes the order state. */
  async shutdown(): Promise<void> {
    this.popLongPollingService.shutdown();
    this.notificationPollingService.shutdown();
    this.consumerOrderInfoManager.shutdown();
    await this.consumerOrderInfoManager.persist();
  }

  /** Written with the consumer offsets. */
  persist(): Promise<void> {
    return this.consumerOrderInfoManager.persist();
  }
}
