/**
 * NotifyMessageArrivingListener (upstream `broker/.../longpolling/NotifyMessageArrivingListener.java`
 * and the arriving call of DefaultMessageStore's reput): each dispatched message wakes the pulls held
 * on its queue. As upstream, only a master with long polling on is woken this way; a slave, or a broker
 * polling short, answers held pulls on the periodic check.
 */
import type { DispatchRequest } from '../../store/dispatch-request.js';
import type { BrokerConfig } from '../broker-config.js';
import type { PullRequestHoldService } from './pull-request-hold-service.js';

export class NotifyMessageArrivingListener {
  constructor(
    private readonly pullRequestHoldService: PullRequestHoldService,
    /** Read per message, so UPDATE_BROKER_CONFIG applies at once. */
    private readonly config: Pick<BrokerConfig, 'brokerRole' | 'longPollingEnable'>,
  ) {}

  /**
   * The store's MessageArrivingInterest: only a queue with a held pull needs the notice (so the store
   * builds no request per record of a batch nobody waits for).
   */
  readonly interest = (topic: string, queueId: number): boolean =>
    this.config.brokerRole !== 'SLAVE' &&
    this.config.longPollingEnable &&
    this.pullRequestHoldService.isHolding(topic, queueId);

  /** The store's MessageArrivingListener. */
  readonly arriving = (request: DispatchRequest): void => {
    if (this.config.brokerRole === 'SLAVE' || !this.config.longPollingEnable) return;
    this.pullRequestHoldService.notifyMessageArriving(
      request.topic,
      request.queueId,
      request.consumeQueueOffset + 1n,
      request.tagsCode,
      request.commitLogOffset,
    );
  };
}
