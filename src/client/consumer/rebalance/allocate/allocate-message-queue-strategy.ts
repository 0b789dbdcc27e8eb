/**
 * Upstream's AllocateMessageQueueStrategy and the input check every built-in strategy shares
 * (AbstractAllocateMessageQueueStrategy). A Java member and a Node member of one consumer group must
 * compute the same assignment from the same sorted inputs, so each strategy follows the 4.9.8 class
 * step for step, including its quirks.
 */
import { createLogger, type Logger } from '../../../../common/logger.js';
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { checkAllocateInput } from '../../../../common/rebalance/allocate-queues.js';

export interface AllocateMessageQueueStrategy {
  /** Upstream getName(): AVG, AVG_BY_CIRCLE, CONFIG, MACHINE_ROOM, CONSISTENT_HASH, MACHINE_ROOM_NEARBY-<inner>. */
  readonly name: string;
  /**
   * The queues `currentCID` should consume. `mqAll` and `cidAll` arrive sorted (RebalanceImpl sorts
   * them: queues by MessageQueue.compare, ids by Java String order); strategies never re-sort.
   */
  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[];
}

export interface AllocateStrategyOptions {
  /** Receives the info line for a consumer id missing from cidAll; a quiet `allocate` logger by default. */
  logger?: Logger | undefined;
}

/** What the built-in strategies share: upstream's check(). */
export abstract class AbstractAllocateMessageQueueStrategy implements AllocateMessageQueueStrategy {
  abstract readonly name: string;
  protected readonly logger: Logger;

  constructor(options: AllocateStrategyOptions = {}) {
    this.logger = options.logger ?? createLogger('allocate');
  }

  abstract allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[];

  /**
   * Empty inputs are a caller's bug and throw upstream's messages; an id missing from cidAll (the
   * broker has not seen this member's heartbeat yet) gives false, so the member takes no queue.
   */
  protected check(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[] | null | undefined,
    cidAll: readonly string[] | null | undefined,
  ): boolean {
    if (!checkAllocateInput(currentCID, mqAll, cidAll)) {
      this.logger.info('[BUG] consumer id not in cidAll', {
        consumerGroup,
        consumerId: currentCID,
        cidAll: cidAll?.join(',') ?? '',
      });
      return false;
    }
    return true;
  }
}
