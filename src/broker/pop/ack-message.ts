/**
 * ACK_MESSAGE (200051) and BATCH_ACK_MESSAGE (200151), upstream AckMessageProcessor (5.5.0, the
 * file-based path): validates as upstream does, in its order (topic, queue id, offset range, then the
 * receipt handle), and writes an ACK record into the revive queue the handle names (decision 2 of
 * the POP design: at once, not as a timer message). The revive service settles the checkpoint bit.
 * A FIFO handle (reviveQid 999) commits through the ConsumerOrderInfoManager instead.
 *
 * Beyond upstream: a handle whose reviveQid is neither 999 nor one of this broker's revive queues is
 * refused with MESSAGE_ILLEGAL (upstream writes the record into that queue of the revive topic,
 * creating it); a handle field that does not parse is SYSTEM_ERROR with the parser's message, as
 * upstream's IllegalArgumentException / NumberFormatException become.
 */
import {
  type BatchAck,
  decodeBatchAckMessageRequestBody,
  getBrokerName,
  getCkQueueOffset,
  getInvisibleTime,
  getPopTime,
  getRealTopic,
  getReviveQid,
  POP_ORDER_REVIVE_QUEUE,
  splitExtraInfo,
} from '../../common/pop/index.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { AckMessageRequestHeader } from '../../remoting/protocol/headers/ack-message-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext, BrokerRequestHandler } from '../processor/broker-context.js';
import { ackOrderly } from './ack-orderly.js';
import { checkAckTarget, isAckRefusal } from './ack-target.js';
import type { ReviveAck } from './pop-revive-state.js';
import { ackMessage as ackRecord, stored } from './revive-records.js';

function respond(request: RemotingCommand, code: number, remark?: string): RemotingCommand {
  return createResponse(request, code, { remark });
}

/** The remark for a reviveQid this broker has no revive queue for (ours, see above). */
export function illegalReviveQid(rqId: number, reviveQueueNum: number): string {
  return `reviveQid[${rqId}] is illegal, reviveQueueNum:[${reviveQueueNum}]`;
}

/** Writes one ack record; false when the store refused it. */
async function putAck(
  broker: BrokerContext,
  reviveQid: number,
  ack: ReviveAck,
  batch: boolean,
): Promise<boolean> {
  const pop = broker.popRevive;
  const result = await broker.messageStore.putMessage(
    ackRecord(broker, pop.reviveTopic, reviveQid, ack, batch),
  );
  if (!stored(result)) {
    broker.logger.error('put ack msg error', { status: result.putMessageStatus, topic: ack.topic });
    return false;
  }
  return true;
}

async function ackOne(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const h = decodeHeader(AckMessageRequestHeader, request.extFields);
  const range = checkAckTarget(broker, ctx, request, h);
  if (isAckRefusal(range)) return range;
  const { minOffset, maxOffset } = range;
  // Upstream lets offset == maxOffset through (no message there yet).
  if (h.offset < minOffset || h.offset > maxOffset) {
    const errorInfo = `offset is illegal, key:${h.topic}@${h.queueId}, commit:${h.offset}, store:${minOffset}~${maxOffset}`;
    broker.logger.warn(errorInfo);
    return respond(request, ResponseCode.NO_MESSAGE, errorInfo);
  }
  // Upstream's getter order; each throws an ExtraInfoError (SYSTEM_ERROR) on a malformed handle.
  const extraInfo = splitExtraInfo(h.extraInfo);
  const brokerName = getBrokerName(extraInfo);
  const rqId = getReviveQid(extraInfo);
  const startOffset = getCkQueueOffset(extraInfo);
  const popTime = getPopTime(extraInfo);
  const invisibleTime = getInvisibleTime(extraInfo);
  if (rqId === POP_ORDER_REVIVE_QUEUE) {
    return ackOrderly(broker, ctx, request, {
      topic: h.topic,
      group: h.consumerGroup,
      queueId: h.queueId,
      ackOffset: h.offset,
      popTime,
      invisibleTime,
    });
  }
  const pop = broker.popRevive;
  if (rqId < 0 || rqId >= pop.reviveQueueNum) {
    return respond(request, ResponseCode.MESSAGE_ILLEGAL, illegalReviveQid(rqId, pop.reviveQueueNum));
  }
  const ack: ReviveAck = {
    topic: h.topic,
    group: h.consumerGroup,
    queueId: h.queueId,
    startOffset,
    popTime: Number(popTime),
    brokerName,
    ackOffsets: [h.offset],
  };
  pop.stats.ackRequests++;
  // Upstream answers SUCCESS even when the put fails (it only logs).
  await putAck(broker, rqId, ack, false);
  return respond(request, ResponseCode.SUCCESS);
}

/** One BatchAck of the body (upstream appendAck with a BatchAck); offsets outside the queue are dropped. */
async function ackBatch(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
  bAck: BatchAck,
  brokerName: string,
  response: { code: number; remark: string | undefined },
): Promise<void> {
  const group = bAck.consumerGroup ?? '';
  const topic = getRealTopic(bAck.topic ?? '', group, bAck.retry ?? '');
  const qId = bAck.queueId;
  const rqId = bAck.reviveQueueId;
  const minOffset = broker.messageStore.getMinOffsetInQueue(topic, qId);
  const maxOffset = broker.messageStore.getMaxOffsetInQueue(topic, qId);
  // Upstream: "Illegal topic or queue found when batch ack" -> nothing acked, answer unchanged.
  if (broker.topicConfigManager.selectTopicConfig(topic) === undefined || minOffset < 0n || maxOffset < 0n) {
    broker.logger.warn('Illegal topic or queue found when batch ack', { topic, queueId: qId });
    return;
  }
  const offsets: bigint[] = [];
  for (const i of bAck.bitSet ?? []) {
    const offset = bAck.startOffset + BigInt(i);
    if (offset < minOffset || offset > maxOffset) continue;
    offsets.push(offset);
  }
  if (offsets.length === 0) return;
  if (rqId === POP_ORDER_REVIVE_QUEUE) {
    for (const offset of offsets) {
      const r = await ackOrderly(broker, ctx, request, {
        topic,
        group,
        queueId: qId,
        ackOffset: offset,
        popTime: bAck.popTime,
        invisibleTime: bAck.invisibleTime,
      });
      if (r.code !== ResponseCode.SUCCESS) {
        response.code = r.code;
        response.remark = r.remark;
      }
    }
    return;
  }
  const pop = broker.popRevive;
  if (rqId < 0 || rqId >= pop.reviveQueueNum) {
    response.code = ResponseCode.MESSAGE_ILLEGAL;
    response.remark = illegalReviveQid(rqId, pop.reviveQueueNum);
    return;
  }
  const ack: ReviveAck = {
    topic,
    group,
    queueId: qId,
    startOffset: bAck.startOffset,
    popTime: Number(bAck.popTime),
    brokerName,
    ackOffsets: offsets,
  };
  pop.stats.ackRequests += offsets.length;
  // Upstream writes one `bAck` record per BatchAck whatever enablePopBatchAck says (that key only
  // steers its PopBufferMergeService, which this broker does not have).
  await putAck(broker, rqId, ack, true);
}

async function batchAck(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const body =
    request.body === undefined || request.body.length === 0
      ? undefined
      : decodeBatchAckMessageRequestBody(request.body);
  if (body?.acks === undefined || body.acks.length === 0) return respond(request, ResponseCode.NO_MESSAGE);
  const response: { code: number; remark: string | undefined } = {
    code: ResponseCode.SUCCESS,
    remark: undefined,
  };
  for (const bAck of body.acks) await ackBatch(broker, ctx, request, bAck, body.brokerName ?? '', response);
  return respond(request, response.code, response.remark);
}

export const ackMessage: BrokerRequestHandler = (broker, ctx, request) =>
  request.code === RequestCode.BATCH_ACK_MESSAGE
    ? batchAck(broker, ctx, request)
    : ackOne(broker, ctx, request);
