/**
 * The FIFO side of ACK_MESSAGE / BATCH_ACK_MESSAGE (upstream AckMessageProcessor.ackOrderly): a
 * handle with reviveQid 999 has no checkpoint; the ack sets the message's bit in the queue's order
 * info (ConsumerOrderInfoManager.commitAndNext) and the group's offset moves to the next un-acked
 * offset. Upstream spins on a queue
 * lock around this; here nothing awaits between the reads and the writes, so the event loop is the lock.
 */
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { COMMIT_ILLEGAL } from './consumer-order-info-manager.js';

export interface OrderlyAck {
  readonly topic: string;
  readonly group: string;
  readonly queueId: number;
  readonly ackOffset: bigint;
  readonly popTime: bigint;
  readonly invisibleTime: bigint;
}

export function ackOrderly(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  a: OrderlyAck,
): RemotingCommand {
  const ok = createResponse(request, ResponseCode.SUCCESS);
  const oldOffset = broker.consumerOffsetManager.queryOffset(a.group, a.topic, a.queueId);
  // Already behind the committed offset: acked before, nothing to do.
  if (a.ackOffset < oldOffset) return ok;
  const orderInfo = broker.pop.consumerOrderInfoManager;
  const nextOffset = orderInfo.commitAndNext(a.topic, a.group, a.queueId, a.ackOffset, a.popTime);
  if (nextOffset >= 0n) {
    broker.consumerOffsetManager.commitOffset(ctx.remoteAddress, a.group, a.topic, a.queueId, nextOffset);
    // Parked FIFO pops are woken by the manager's onLockFree once the queue is no longer blocked
    // (upstream: notifyMessageArriving when checkBlock says free).
  } else if (nextOffset === COMMIT_ILLEGAL) {
    const lockKey = `${a.topic}@${a.group}@${a.queueId}`;
    const errorInfo = `offset is illegal, key:${lockKey}, old:${oldOffset}, commit:${a.ackOffset}, next:${nextOffset}, /${ctx.remoteAddress}`;
    broker.logger.warn(errorInfo);
    return createResponse(request, ResponseCode.MESSAGE_ILLEGAL, { remark: errorInfo });
  }
  // -2 (the pop time is not the queue's current pop): SUCCESS, nothing committed, as upstream.
  broker.popRevive.inflight.decrementInFlightMessageNum(a.topic, a.group, Number(a.popTime), a.queueId, 1);
  broker.popRevive.stats.ackRequests++;
  return ok;
}
