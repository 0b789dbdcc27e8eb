/**
 * RebalanceLitePullImpl: what rebalancing does for a lite pull consumer. As the pull consumer's (the
 * queues it holds feed its pull tasks through messageQueueChanged, a queue that leaves has its offset
 * persisted, no PullRequest is dispatched), but a new queue starts where computePullFromWhere says.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { computePullFromWhere, type PullFromWhereContext } from './compute-pull-from-where.js';
import { type PullRebalanceHost, RebalancePullAdapter } from './rebalance-pull-adapter.js';

export interface LitePullRebalanceHost extends PullRebalanceHost {
  pullFromWhereContext(): PullFromWhereContext;
}

export class RebalanceLitePullAdapter extends RebalancePullAdapter {
  private readonly host: LitePullRebalanceHost;

  constructor(host: LitePullRebalanceHost) {
    super(host);
    this.host = host;
  }

  override computePullFromWhere(mq: MessageQueue): Promise<bigint> {
    return computePullFromWhere(this.host.pullFromWhereContext(), mq);
  }
}
