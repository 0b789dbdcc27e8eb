/**
 * What every broker request handler works with, and the handler signature: one handler per request
 * code, each in its own file, all listed in processor-table.ts. The BrokerController is the context.
 */
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { DataVersion } from '../../common/protocol/data-version.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import type { ConsumerFilterManager } from '../../filter/consumer-filter-manager.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { MessageStoreConfig } from '../../store/config.js';
import type { ScheduleMessageService } from '../../store/schedule/schedule-message-service.js';
import type { TimerMessageStore } from '../../store/timer/timer-message-store.js';
import type { BrokerConfig, BrokerConfigFileKey } from '../broker-config.js';
import type { BrokerConfiguration } from '../broker-configuration.js';
import type { ConsumerManager } from '../client/consumer-manager.js';
import type { ConsumerFilterHooks } from '../client/default-consumer-ids-change-listener.js';
import type { ProducerManager } from '../client/producer-manager.js';
import type { RebalanceLockManager } from '../client/rebalance-lock-manager.js';
import type { MessageRequestModeManager } from '../loadbalance/message-request-mode-manager.js';
import type { TopicRouteInfoManager } from '../loadbalance/topic-route-info-manager.js';
import type { PullRequestHoldService } from '../longpolling/pull-request-hold-service.js';
import type { BrokerMessageStore } from '../message-store.js';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager.js';
import type { PopReviveView } from '../pop/pop-revive-view.js';
import type { PopServices } from '../pop/pop-services.js';
import type { BrokerStats } from '../stats/broker-stats.js';
import type { BrokerStatsManager } from '../stats/broker-stats-manager.js';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager.js';
import type { TopicConfigManager } from '../topic/topic-config-manager.js';
import type { TransactionalMessageService } from '../transaction/transactional-message-service.js';

export interface BrokerContext {
  /** Live settings: UPDATE_BROKER_CONFIG changes the allowlisted ones in place. */
  readonly config: BrokerConfig;
  readonly configuration: BrokerConfiguration;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly topicConfigManager: TopicConfigManager;
  readonly subscriptionGroupManager: SubscriptionGroupManager;
  readonly consumerOffsetManager: ConsumerOffsetManager;
  readonly producerManager: ProducerManager;
  readonly consumerManager: ConsumerManager;
  /** The request mode (PULL / POP) of each topic and group (SET_MESSAGE_REQUEST_MODE, QUERY_ASSIGNMENT). */
  readonly messageRequestModeManager: MessageRequestModeManager;
  /** Topics' queues on every broker of their route (QUERY_ASSIGNMENT). */
  readonly topicRouteInfoManager: TopicRouteInfoManager;
  /** Orderly consumers' queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ). */
  readonly rebalanceLockManager: RebalanceLockManager;
  readonly messageStore: BrokerMessageStore;
  /** Per-topic, per-group and broker-wide put/get counters (send and pull paths bump them). */
  readonly brokerStatsManager: BrokerStatsManager;
  /** The store's put/get totals at the last two midnights (runtime info). */
  readonly brokerStats: BrokerStats;
  /** The store's view of the settings (UPDATE_BROKER_CONFIG keeps it in step). */
  readonly storeConfig: MessageStoreConfig;
  /** `brokerIP1:listenPort` (the bound port once started): the address clients and name servers know. */
  readonly brokerAddr: string;
  /** The consumer filter manager's hooks, when one is plugged in. */
  readonly consumerFilter: ConsumerFilterHooks | undefined;
  /** The SQL92 filters of the groups' subscriptions, compiled once per subscription version. */
  readonly consumerFilterManager: ConsumerFilterManager;
  /** Pulls that found nothing, held until a message arrives (long polling). */
  readonly pullRequestHoldService: PullRequestHoldService;
  /** POP_MESSAGE's side: FIFO order state (consumerOrderInfoManager), pop long polling, pop counters. */
  readonly pop: PopServices;
  /** Delivers delayed and retried messages when due (a broker over a DefaultMessageStore has one). */
  readonly scheduleMessageService?: ScheduleMessageService | undefined;
  /** Gives out timer messages (5.x); its flow control is consulted by the send-path transform. */
  readonly timerMessageStore?: TimerMessageStore | undefined;
  /** Half messages of transactions: END_TRANSACTION settles them, the check service asks about the rest. */
  readonly transactionalMessageService: TransactionalMessageService;
  /** POP: the revive services (one per revive queue), the in-flight counter and the ack/revive counters. */
  readonly popRevive: PopReviveView;
  /** Registers with every name server; never rejects (failures are logged). */
  registerBrokerAll(checkOrderConfig: boolean, oneway: boolean, forceRegister: boolean): Promise<void>;
  /** Registers one changed topic with every name server (UPDATE_AND_CREATE_TOPIC); never rejects. */
  registerIncrementBrokerData(topicConfig: TopicConfig, dataVersion: DataVersion): Promise<void>;
  /** Settings an UPDATE_BROKER_CONFIG changed, for whoever derived state from them (the store's config). */
  onConfigUpdated(keys: readonly BrokerConfigFileKey[]): void;
}

/**
 * Answers one request. Thrown errors become SYSTEM_ERROR (or a RocketMQError's own code) with the
 * error's message as remark, which is how a missing or malformed header field is answered.
 */
export type BrokerRequestHandler = (
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
) => RemotingCommand | Promise<RemotingCommand>;

/** Upstream's validateSlave remark: metadata is changed on the master only. */
export const SLAVE_REMARK =
  "Can't modify topic or subscription group from slave broker, please execute it from master broker.";

export function isSlave(broker: BrokerContext): boolean {
  return broker.config.brokerRole === 'SLAVE';
}
