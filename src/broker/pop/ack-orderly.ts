/**
 * The FIFO side of ACK_MESSAGE / BATCH_ACK_MESSAGE (upstream AckMessageProcessor.ackOrderly): a
 * handle with reviveQid 999 has no checkpoint; the ack sets the message's bit in the queue's order
 * info (ConsumerOrderInfoManager.commitAndNext), the group's offset moves to the next un-acked
 * offset, and the queue's held pops are woken when it is no longer blocked. Upstream spins on a queue
 * lock around this; here nothing awaits between the reads and the writes, so the event loop is the lock.
 */
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext } from '../processor/broker-context.js';

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
  void ctx;
  void a;
  void broker;
  // TEMP until the ConsumerOrderInfoManager lands (pop order commit).
  return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'FIFO ack not available yet' });
}
