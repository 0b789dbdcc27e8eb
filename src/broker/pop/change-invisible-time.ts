/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053), upstream ChangeInvisibleTimeProcessor (5.5.0, file-based
 * path): validates as upstream (topic, queue id, offset in [min, max) else NO_MESSAGE without a
 * remark), then writes a fresh one-message checkpoint (num 1, startOffset = the message's offset,
 * popTime now, the new invisible time) and an ack of the old checkpoint's bit, both into the revive
 * queue the handle names. The response header carries popTime, invisibleTime and reviveQid, from which
 * the client builds the message's new handle (ckQueueOffset = the message's offset). A FIFO handle
 * (reviveQid 999) moves the message's next visible time in the ConsumerOrderInfoManager instead.
 *
 * Beyond upstream: every handle field is parsed before anything is written (upstream parses
 * ckQueueOffset and popTime only after storing the new checkpoint, so a handle broken there leaves a
 * second checkpoint behind and answers SYSTEM_ERROR); a reviveQid this broker has no queue for is
 * MESSAGE_ILLEGAL. The invisible time is taken as given (upstream checks none; a negative one makes the
 * message due at once).
 */
import {
  getBrokerName,
  getCkQueueOffset,
  getInvisibleTime,
  getPopTime,
  getReviveQid,
  POP_ORDER_REVIVE_QUEUE,
  splitExtraInfo,
} from '../../common/pop/index.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import { ChangeInvisibleTimeRequestHeader } from '../../remoting/protocol/headers/change-invisible-time-request-header.js';
import { ChangeInvisibleTimeResponseHeader } from '../../remoting/protocol/headers/change-invisible-time-response-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from '../processor/broker-context.js';
import { illegalReviveQid } from './ack-message.js';
import { checkAckTarget, isAckRefusal } from './ack-target.js';
import { mergeKey, type ReviveAck, type ReviveCheckPoint } from './pop-revive-state.js';
import { ackMessage as ackRecord, CHANGE_ACK_PROPERTY, checkPointMessage, stored } from './revive-records.js';

function respond(request: RemotingCommand, code: number, remark?: string): RemotingCommand {
  return createResponse(request, code, { remark });
}

function withHeader(
  request: RemotingCommand,
  popTime: bigint,
  invisibleTime: bigint,
  reviveQid: number,
): RemotingCommand {
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(ChangeInvisibleTimeResponseHeader, { popTime, invisibleTime, reviveQid }),
  });
}

export const changeInvisibleTime: BrokerRequestHandler = async (broker, ctx, request) => {
  const h = decodeHeader(ChangeInvisibleTimeRequestHeader, request.extFields);
  const range = checkAckTarget(broker, ctx, request, h);
  if (isAckRefusal(range)) return range;
  const { minOffset, maxOffset } = range;
  if (h.offset < minOffset || h.offset >= maxOffset) return respond(request, ResponseCode.NO_MESSAGE);

  const extraInfo = splitExtraInfo(h.extraInfo);
  const rqId = getReviveQid(extraInfo);
  const pop = broker.popRevive;
  if (rqId === POP_ORDER_REVIVE_QUEUE) {
    const popTime = getPopTime(extraInfo);
    const oldOffset = broker.consumerOffsetManager.queryOffset(h.consumerGroup, h.topic, h.queueId);
    // Acked already: upstream answers SUCCESS with no header fields.
    if (h.offset < oldOffset) return respond(request, ResponseCode.SUCCESS);
    const nextVisibleTime = BigInt(broker.clock.now()) + h.invisibleTime;
    broker.pop.consumerOrderInfoManager.updateNextVisibleTime(
      h.topic,
      h.consumerGroup,
      h.queueId,
      h.offset,
      popTime,
      nextVisibleTime,
    );
    pop.stats.changeInvisibleTimes++;
    return withHeader(request, popTime, nextVisibleTime - popTime, rqId);
  }
  // Needed by the new checkpoint and the old one's ack; all parsed before anything is written.
  const brokerName = getBrokerName(extraInfo);
  const ckQueueOffset = getCkQueueOffset(extraInfo);
  const oldPopTime = getPopTime(extraInfo);
  getInvisibleTime(extraInfo);
  if (rqId < 0 || rqId >= pop.reviveQueueNum) {
    return respond(request, ResponseCode.MESSAGE_ILLEGAL, illegalReviveQid(rqId, pop.reviveQueueNum));
  }

  // A checkpoint is known by topic, group, queue, startOffset, popTime and broker name: a change
  // within the pop's millisecond of its first message would name the old checkpoint again.
  let now = broker.clock.now();
  if (ckQueueOffset === h.offset && BigInt(now) <= oldPopTime) now = Number(oldPopTime) + 1;
  const ck: ReviveCheckPoint = {
    topic: h.topic,
    group: h.consumerGroup,
    queueId: h.queueId,
    startOffset: h.offset,
    popTime: now,
    invisibleTime: Number(h.invisibleTime),
    bitMap: 0,
    num: 1,
    queueOffsetDiff: [0],
    brokerName,
    previous: mergeKey(h.topic, h.consumerGroup, h.queueId, ckQueueOffset, Number(oldPopTime), brokerName),
  };
  const ckPut = await broker.messageStore.putMessage(
    checkPointMessage(broker, pop.reviveTopic, rqId, ck, h.invisibleTime),
  );
  if (!stored(ckPut)) {
    broker.logger.error('change invisible, put new ck error', { status: ckPut.putMessageStatus });
    return createResponse(request, ResponseCode.SYSTEM_ERROR);
  }
  // The new checkpoint holds the message now (the ack of the old bit below counts it down once).
  pop.inflight.incrementInFlightMessageNum(h.topic, h.consumerGroup, h.queueId, 1);
  const ack: ReviveAck = {
    topic: h.topic,
    group: h.consumerGroup,
    queueId: h.queueId,
    startOffset: ckQueueOffset,
    popTime: Number(oldPopTime),
    brokerName,
    ackOffsets: [h.offset],
  };
  const ackPut = await broker.messageStore.putMessage(
    ackRecord(broker, pop.reviveTopic, rqId, ack, false, [[CHANGE_ACK_PROPERTY, 'true']]),
  );
  // Upstream answers SUCCESS when only the ack of the old checkpoint failed (it logs it).
  if (!stored(ackPut))
    broker.logger.error('change Invisible, put ack msg fail', { status: ackPut.putMessageStatus });
  pop.stats.changeInvisibleTimes++;
  return withHeader(request, BigInt(now), h.invisibleTime, rqId);
};
