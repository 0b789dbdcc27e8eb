/** The six built-in allocation strategies of upstream's push and pull consumers. */
export {
  AbstractAllocateMessageQueueStrategy,
  type AllocateMessageQueueStrategy,
  type AllocateStrategyOptions,
} from './allocate-message-queue-strategy.js';
export { AllocateMessageQueueAveragely } from './averagely.js';
export { AllocateMessageQueueAveragelyByCircle } from './averagely-by-circle.js';
export { AllocateMessageQueueByConfig } from './by-config.js';
export { type AllocateByMachineRoomOptions, AllocateMessageQueueByMachineRoom } from './by-machine-room.js';
export {
  type AllocateConsistentHashOptions,
  AllocateMessageQueueConsistentHash,
  DEFAULT_VIRTUAL_NODE_CNT,
} from './consistent-hash.js';
export { ConsistentHashRouter, type HashFunction, MD5_HASH } from './consistent-hash-router.js';
export { AllocateMachineRoomNearby, type MachineRoomResolver } from './machine-room-nearby.js';
