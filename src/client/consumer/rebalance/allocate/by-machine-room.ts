/**
 * Upstream AllocateMessageQueueByMachineRoom: only queues of brokers named `room@name` whose room is
 * one of `consumeridcs` are shared out, in blocks of `floor(n / members)` with the remainder dealt
 * one each to the first members. Queues of other brokers go to nobody.
 */
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import { machineRoomOf } from '../../../machine-room.js';
import {
  AbstractAllocateMessageQueueStrategy,
  type AllocateStrategyOptions,
} from './allocate-message-queue-strategy.js';

export interface AllocateByMachineRoomOptions extends AllocateStrategyOptions {
  /** The rooms this group consumes from (upstream's consumeridcs). */
  consumeridcs: Iterable<string>;
}

export class AllocateMessageQueueByMachineRoom extends AbstractAllocateMessageQueueStrategy {
  readonly name = 'MACHINE_ROOM';
  readonly consumeridcs: ReadonlySet<string>;

  constructor(options: AllocateByMachineRoomOptions) {
    super(options);
    this.consumeridcs = new Set(options.consumeridcs);
  }

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    const result: MessageQueue[] = [];
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return result;

    const currentIndex = cidAll.indexOf(currentCID);
    const premqAll = mqAll.filter((mq) => {
      const room = machineRoomOf(mq.brokerName);
      return room !== undefined && this.consumeridcs.has(room);
    });

    const mod = Math.trunc(premqAll.length / cidAll.length);
    const rem = premqAll.length % cidAll.length;
    const startIndex = mod * currentIndex;
    for (let i = startIndex; i < startIndex + mod; i++) {
      result.push(premqAll[i] as MessageQueue);
    }
    if (rem > currentIndex) {
      result.push(premqAll[currentIndex + mod * cidAll.length] as MessageQueue);
    }
    return result;
  }
}
