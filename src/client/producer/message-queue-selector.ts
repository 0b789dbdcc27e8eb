/**
 * Queue selectors for ordered messages (upstream MessageQueueSelector and its three built-ins):
 * messages given the same argument go to the same queue, so they are stored and consumed in order.
 */
import { javaStringHashCode } from '../../common/java-hash.js';
import type { Message } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import { machineRoomOf } from '../machine-room.js';

/** Picks one of the topic's writable queues for `msg`; `arg` is what the caller passed to send. */
export type MessageQueueSelector = (mqs: readonly MessageQueue[], msg: Message, arg: unknown) => MessageQueue;

/**
 * Java's `arg.hashCode()` for the values a Node caller passes: strings as String.hashCode, int32
 * numbers as Integer.hashCode, other numbers and bigints as Long.hashCode, booleans as
 * Boolean.hashCode, anything else through its string form. Equal arguments always pick one queue;
 * strings and ints pick the queue a Java producer would.
 */
export function javaHashCodeOf(arg: unknown): number {
  switch (typeof arg) {
    case 'string':
      return javaStringHashCode(arg);
    case 'number':
      if (Number.isInteger(arg) && arg >= -2147483648 && arg <= 2147483647) return arg;
      return longHashCode(BigInt.asIntN(64, BigInt(Math.trunc(Number.isFinite(arg) ? arg : 0))));
    case 'bigint':
      return longHashCode(BigInt.asIntN(64, arg));
    case 'boolean':
      return arg ? 1231 : 1237;
    default:
      return javaStringHashCode(String(arg));
  }
}

function longHashCode(v: bigint): number {
  const u = BigInt.asUintN(64, v);
  return Number(BigInt.asIntN(32, u ^ (u >> 32n)));
}

/** SelectMessageQueueByHash: `abs(arg.hashCode()) % mqs.size()`. */
export const selectMessageQueueByHash: MessageQueueSelector = (mqs, _msg, arg) => {
  let value = javaHashCodeOf(arg) % mqs.length;
  if (value < 0) value = Math.abs(value);
  return mqs[value] as MessageQueue;
};

/** SelectMessageQueueByRandom. */
export const selectMessageQueueByRandom: MessageQueueSelector = (mqs) =>
  mqs[Math.floor(Math.random() * mqs.length)] as MessageQueue;

/**
 * SelectMessageQueueByMachineRoom: upstream's is a stub that returns null for every message (the
 * machine-room layout lived in Alibaba's own deployments). Here, with the convention of upstream's
 * AllocateMessageQueueByMachineRoom (broker names `room@name`): the queues of brokers in one of the
 * `consumeridcs` rooms, picked by the argument's hash like SelectMessageQueueByHash; every queue when
 * no broker is in those rooms.
 */
export function selectMessageQueueByMachineRoom(consumeridcs: Iterable<string>): MessageQueueSelector {
  const rooms = new Set(consumeridcs);
  return (mqs, msg, arg) => {
    const inRoom = mqs.filter((mq) => {
      const room = machineRoomOf(mq.brokerName);
      return room !== undefined && rooms.has(room);
    });
    return selectMessageQueueByHash(inRoom.length > 0 ? inRoom : mqs, msg, arg);
  };
}
