/**
 * Upstream AllocateMessageQueueConsistentHash: members on a hash ring with `virtualNodeCnt` virtual
 * nodes each; a queue belongs to the member owning `mq.toString()` on the ring. Fewer queues move
 * when members come and go than with the averaging strategies, at the price of an uneven split.
 */
import { ValidationError } from '../../../../common/errors.js';
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import {
  AbstractAllocateMessageQueueStrategy,
  type AllocateStrategyOptions,
} from './allocate-message-queue-strategy.js';
import { ConsistentHashRouter, type HashFunction } from './consistent-hash-router.js';

/** Upstream's default number of virtual nodes per member. */
export const DEFAULT_VIRTUAL_NODE_CNT = 10;

export interface AllocateConsistentHashOptions extends AllocateStrategyOptions {
  /** Virtual nodes per member [10]; 0 leaves the ring empty, so nobody gets a queue. */
  virtualNodeCnt?: number | undefined;
  /** Replaces upstream's MD5 hash; members must all use the same one. */
  customHashFunction?: HashFunction | undefined;
}

export class AllocateMessageQueueConsistentHash extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'CONSISTENT_HASH';
  readonly virtualNodeCnt: number;
  private readonly customHashFunction: HashFunction | undefined;

  constructor(options: AllocateConsistentHashOptions = {}) {
    super(options);
    const virtualNodeCnt = options.virtualNodeCnt ?? DEFAULT_VIRTUAL_NODE_CNT;
    if (!Number.isInteger(virtualNodeCnt) || virtualNodeCnt < 0) {
      throw new ValidationError(`illegal virtualNodeCnt :${virtualNodeCnt}`);
    }
    this.virtualNodeCnt = virtualNodeCnt;
    this.customHashFunction = options.customHashFunction;
  }

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return [];

    const router = new ConsistentHashRouter(cidAll, this.virtualNodeCnt, this.customHashFunction);
    return mqAll.filter((mq) => router.routeNode(mq.toString()) === currentCID);
  }
}
