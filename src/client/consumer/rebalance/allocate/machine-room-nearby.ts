/**
 * Upstream AllocateMachineRoomNearby: queues of a machine room go to the members in that room (shared
 * out by the wrapped strategy); queues of a room with no member go to every member. Rooms come from
 * a resolver the application provides, for brokers and for client ids alike.
 */
import { ValidationError } from '../../../../common/errors.js';
import { javaStringCompare } from '../../../../common/message/java-lang.js';
import type { MessageQueue } from '../../../../common/message/message-queue.js';
import {
  AbstractAllocateMessageQueueStrategy,
  type AllocateMessageQueueStrategy,
  type AllocateStrategyOptions,
} from './allocate-message-queue-strategy.js';

/** Upstream MachineRoomResolver: must name a room (non-empty) for every queue and every client id. */
export interface MachineRoomResolver {
  brokerDeployIn(messageQueue: MessageQueue): string;
  consumerDeployIn(clientID: string): string;
}

export class AllocateMachineRoomNearby extends AbstractAllocateMessageQueueStrategy {
  readonly name: string;
  private readonly allocateMessageQueueStrategy: AllocateMessageQueueStrategy;
  private readonly machineRoomResolver: MachineRoomResolver;

  constructor(
    allocateMessageQueueStrategy: AllocateMessageQueueStrategy,
    machineRoomResolver: MachineRoomResolver,
    options: AllocateStrategyOptions = {},
  ) {
    super(options);
    // Upstream throws NullPointerException with these messages; plain JavaScript callers can pass nothing.
    if (allocateMessageQueueStrategy == null) {
      throw new ValidationError('allocateMessageQueueStrategy is null');
    }
    if (machineRoomResolver == null) {
      throw new ValidationError('machineRoomResolver is null');
    }
    this.allocateMessageQueueStrategy = allocateMessageQueueStrategy;
    this.machineRoomResolver = machineRoomResolver;
    this.name = `MACHINE_ROOM_NEARBY-${allocateMessageQueueStrategy.name}`;
  }

  allocate(
    consumerGroup: string,
    currentCID: string,
    mqAll: readonly MessageQueue[],
    cidAll: readonly string[],
  ): MessageQueue[] {
    if (!this.check(consumerGroup, currentCID, mqAll, cidAll)) return [];

    const mr2Mq = new Map<string, MessageQueue[]>();
    for (const mq of mqAll) {
      const brokerMachineRoom = this.machineRoomResolver.brokerDeployIn(mq);
      if (!isNonEmpty(brokerMachineRoom)) {
        throw new ValidationError(`Machine room is null for mq ${mq.toString()}`);
      }
      groupInto(mr2Mq, brokerMachineRoom, mq);
    }
    const mr2c = new Map<string, string[]>();
    for (const cid of cidAll) {
      const consumerMachineRoom = this.machineRoomResolver.consumerDeployIn(cid);
      if (!isNonEmpty(consumerMachineRoom)) {
        throw new ValidationError(`Machine room is null for consumer id ${cid}`);
      }
      groupInto(mr2c, consumerMachineRoom, cid);
    }

    const allocateResults: MessageQueue[] = [];
    const inner = this.allocateMessageQueueStrategy;
    const currentMachineRoom = this.machineRoomResolver.consumerDeployIn(currentCID);
    const mqInThisMachineRoom = mr2Mq.get(currentMachineRoom);
    mr2Mq.delete(currentMachineRoom);
    if (mqInThisMachineRoom !== undefined && mqInThisMachineRoom.length > 0) {
      // check() passed, so the current member is in cidAll and its room has a consumer list.
      const consumerInThisMachineRoom = mr2c.get(currentMachineRoom) as string[];
      allocateResults.push(
        ...inner.allocate(consumerGroup, currentCID, mqInThisMachineRoom, consumerInThisMachineRoom),
      );
    }

    // Upstream walks the rooms of a TreeMap, so the order of the appended queues follows Java String order.
    const rooms = [...mr2Mq.keys()].sort(javaStringCompare);
    for (const room of rooms) {
      if (!mr2c.has(room)) {
        allocateResults.push(...inner.allocate(consumerGroup, currentCID, mr2Mq.get(room) ?? [], cidAll));
      }
    }
    return allocateResults;
  }
}

function isNonEmpty(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value.length > 0;
}

function groupInto<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
