/**
 * POP_MESSAGE (200050), upstream PopMessageProcessor (5.5.0, enablePopBufferMerge false): pops up
 * to maxMsgNums (<= 32) messages of a topic for a consumer group -- one queue, or every readable
 * queue from a random one on (queueId -1) -- together with the group's POP retry topic
 * (`%RETRY%<group>_<topic>`, read first with probability popFromRetryProbability, else after the
 * topic when the batch is not full; never for FIFO), through the TAG / SQL92 filter of the request.
 *
 * Per queue read (under a `topic@group@queueId` lock): a normal pop writes a checkpoint (PopCheckPoint,
 * tag `ck`) into revive queue `reviveQid` of the revive topic, and only once it is stored commits the
 * group's offset past what was read (filtered-out messages included); a FIFO pop (order=true) writes no
 * checkpoint, records the batch in the ConsumerOrderInfoManager (the queue stays blocked until the batch
 * is acked or invisible no more, unless the same attemptId asks again) and commits the batch's start.
 * Retried messages are re-topic'd to the topic with their receipt handle in POP_CK.
 *
 * The answer: SUCCESS with the records concatenated as PULL's body, and the header's popTime,
 * invisibleTime, reviveQid, restNum, startOffsetInfo, msgOffsetInfo (and orderCountInfo) from which
 * the client builds each message's receipt handle. Nothing found: the request is parked in the
 * PopLongPollingService until a message arrives or its poll time is over (POLLING_TIMEOUT), or
 * answered POLLING_FULL / POLLING_TIMEOUT at once.
 */
import { MixAll, PermName } from '../../common/constants.js';
import type { HostAddress } from '../../common/message/host.js';
import { decodeMessage, encodeMessage } from '../../common/message/stored-format.js';
import {
  buildExtraInfo,
  joinInfo,
  msgOffsetInfoItem,
  startOffsetInfoItem,
} from '../../common/pop/extra-info.js';
import {
  buildClusterReviveTopic,
  buildPollingKey,
  buildPopRetryTopic,
  POP_ORDER_REVIVE_QUEUE,
} from '../../common/pop/key-builder.js';
import type { PopCheckPoint } from '../../common/pop/pop-check-point.js';
import { PopMessageConst } from '../../common/pop/pop-message-const.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import {
  buildConsumerFilterData,
  ExpressionMessageFilter,
  FilterAPI,
  isTagType,
} from '../../filter/index.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  isPopTimeoutTooMuch,
  PopMessageRequestHeader,
} from '../../remoting/protocol/headers/pop-message-request-header.js';
import { PopMessageResponseHeader } from '../../remoting/protocol/headers/pop-message-response-header.js';
import { ResponseCode, ResponseCode5xReused } from '../../remoting/protocol/response-code.js';
import { type ProcessorContext, parseAddress } from '../../remoting/transport/index.js';
import { GetMessageStatus, joinRecords, type MessageFilter } from '../../store/message-store.js';
import type { BrokerContext, BrokerRequestHandler } from '../processor/broker-context.js';
import { checkConsumeGroup, isGroupRefusal } from '../processor/consume-group-check.js';
import { buildCkMsg } from './pop-ck-message.js';
import type { PopRequest } from './pop-request.js';
import { enableRetryTopicV2Of, reviveQueueNumOf, timerWheelEnableOf } from './pop-settings.js';

/** ConsumeInitMode.MIN. */
export const CONSUME_INIT_MODE_MIN = 0;
/** ConsumeInitMode.MAX. */
export const CONSUME_INIT_MODE_MAX = 1;
/** Upstream's limit on maxMsgNums (a checkpoint's bit map holds 32 messages). */
export const POP_MAX_MSG_NUMS = 32;

const FAQ_TIP = '\nSee https://rocketmq.apache.org/docs/bestPractice/06FAQ for further details.';
const BORN_TIME = 'bornTime';

/** What one pop collects over the queues it reads. */
interface PopBatch {
  readonly h: PopMessageRequestHeader;
  readonly popTime: number;
  readonly reviveQid: number;
  readonly filter: MessageFilter | undefined;
  readonly clientHost: string;
  readonly messages: Buffer[];
  size: number;
  readonly startOffsetInfo: string[];
  readonly msgOffsetInfo: string[];
  readonly orderCountInfo: string[] | undefined;
}

function refuse(request: RemotingCommand, code: number, remark: string): RemotingCommand {
  return createResponse(request, code, { remark });
}

function brokerHost(broker: BrokerContext): HostAddress {
  const { host, port } = parseAddress(broker.brokerAddr);
  return { address: host, port };
}

/** The TAG/SQL92 filter of the request, or the refusal (SUBSCRIPTION_PARSE_FAILED). */
function buildFilter(
  broker: BrokerContext,
  request: RemotingCommand,
  h: PopMessageRequestHeader,
): { filter: MessageFilter | undefined } | RemotingCommand {
  if (h.exp === undefined || h.exp === '') return { filter: undefined };
  try {
    const now = broker.clock.now();
    const subscriptionData = FilterAPI.build(h.topic, h.exp, h.expType, {
      subVersion: BigInt(now),
      javaOrder: false,
    });
    let consumerFilterData: ReturnType<typeof buildConsumerFilterData>;
    if (!isTagType(subscriptionData.expressionType)) {
      consumerFilterData = buildConsumerFilterData(
        h.topic,
        h.consumerGroup,
        h.exp,
        subscriptionData.expressionType,
        BigInt(now),
        now,
        broker.consumerFilterManager.factory,
      );
    }
    const onFailure = (error: unknown) =>
      broker.consumerFilterManager.evaluationFailed(h.topic, h.consumerGroup, error);
    return { filter: new ExpressionMessageFilter(subscriptionData, consumerFilterData, onFailure) };
  } catch (error) {
    broker.logger.warn("Parse the consumer's subscription failed", {
      exp: h.exp.slice(0, 200),
      group: h.consumerGroup,
      error: error instanceof Error ? error.message : String(error),
    });
    return refuse(
      request,
      ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      "parse the consumer's subscription failed",
    );
  }
}

/**
 * Upstream getInitOffset: MIN (and retry topics) start at the queue's min offset; MAX at its last
 * message (max - 1), or at 0 when initPopOffsetByCheckMsgInMem and the first message is in memory.
 * With `init` the start is committed as the group's offset.
 */
function getInitOffset(
  broker: BrokerContext,
  topic: string,
  group: string,
  queueId: number,
  initMode: number,
  init: boolean,
): bigint {
  const store = broker.messageStore;
  let offset: bigint;
  if (initMode === CONSUME_INIT_MODE_MIN || topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) {
    offset = store.getMinOffsetInQueue(topic, queueId);
  } else if (
    broker.config.initPopOffsetByCheckMsgInMem &&
    store.getMinOffsetInQueue(topic, queueId) <= 0n &&
    store.getMaxOffsetInQueue(topic, queueId) > 0n &&
    !store.checkInDiskByConsumeOffset(topic, queueId, 0n)
  ) {
    offset = 0n;
  } else {
    offset = store.getMaxOffsetInQueue(topic, queueId) - 1n;
    if (offset < 0n) offset = 0n;
  }
  if (init) broker.consumerOffsetManager.commitOffset('getPopOffset', group, topic, queueId, offset);
  return offset;
}

function getPopOffset(
  broker: BrokerContext,
  topic: string,
  h: PopMessageRequestHeader,
  queueId: number,
  init: boolean,
): bigint {
  const offset = broker.consumerOffsetManager.queryOffset(h.consumerGroup, topic, queueId);
  if (offset >= 0n) return offset;
  return getInitOffset(broker, topic, h.consumerGroup, queueId, h.initMode, init);
}

/** Upstream appendCheckPoint + the write of buildCkMsg; false when the store refused it. */
async function appendCheckPoint(
  broker: BrokerContext,
  batch: PopBatch,
  topic: string,
  queueId: number,
  startOffset: bigint,
  queueOffsets: readonly bigint[],
): Promise<boolean> {
  const h = batch.h;
  const ck: PopCheckPoint = {
    startOffset,
    popTime: BigInt(batch.popTime),
    invisibleTime: h.invisibleTime,
    bitMap: 0,
    num: queueOffsets.length,
    queueId,
    topic,
    cid: h.consumerGroup,
    reviveOffset: 0n,
    queueOffsetDiff: queueOffsets.map((o) => Number(o - startOffset)),
    brokerName: broker.config.brokerName,
  };
  const reviveTopic = buildClusterReviveTopic(broker.config.brokerClusterName);
  const msg = buildCkMsg(ck, reviveTopic, batch.reviveQid, brokerHost(broker), broker.clock.now());
  try {
    const result = await broker.messageStore.putMessage(msg);
    if (result.putMessageStatus !== 'PUT_OK') {
      broker.logger.error('pop checkpoint put failed', { topic, queueId, status: result.putMessageStatus });
      return false;
    }
  } catch (error) {
    broker.logger.error('pop checkpoint put failed', {
      topic,
      queueId,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
  broker.pop.popStats.recordCheckpoint(h.consumerGroup, h.topic);
  return true;
}

/** A retried message as the client must see it: the original topic, its receipt handle in POP_CK. */
function retopic(broker: BrokerContext, batch: PopBatch, record: Buffer, ckOffset: bigint): Buffer {
  const ext = decodeMessage(record, 0, { decompress: false });
  if (ext.getProperty(PopMessageConst.PROPERTY_POP_CK) === undefined) {
    ext.putProperty(
      PopMessageConst.PROPERTY_POP_CK,
      buildExtraInfo(
        ckOffset,
        BigInt(batch.popTime),
        batch.h.invisibleTime,
        batch.reviveQid,
        ext.topic,
        broker.config.brokerName,
        ext.queueId,
        ext.queueOffset,
      ),
    );
  }
  ext.topic = batch.h.topic;
  return encodeMessage(ext);
}

const REREAD_STATUSES: ReadonlySet<string> = new Set([
  GetMessageStatus.OFFSET_TOO_SMALL,
  GetMessageStatus.OFFSET_OVERFLOW_BADLY,
  GetMessageStatus.OFFSET_FOUND_NULL,
]);

const SKIPPED_STATUSES: ReadonlySet<string> = new Set([
  GetMessageStatus.NO_MATCHED_MESSAGE,
  GetMessageStatus.OFFSET_FOUND_NULL,
  GetMessageStatus.MESSAGE_WAS_REMOVING,
  GetMessageStatus.NO_MATCHED_LOGIC_QUEUE,
]);

/** Upstream popMsgFromQueue: reads one queue into the batch; returns restNum grown by its backlog. */
async function popMsgFromQueue(
  broker: BrokerContext,
  batch: PopBatch,
  topic: string,
  isRetry: boolean,
  queueId: number,
  restNum: bigint,
): Promise<bigint> {
  const h = batch.h;
  const store = broker.messageStore;
  const pop = broker.pop;
  const lockKey = buildPollingKey(topic, h.consumerGroup, queueId);
  let offset = getPopOffset(broker, topic, h, queueId, false);
  if (!pop.queueLockManager.tryLock(lockKey)) {
    return h.order ? restNum : store.getMaxOffsetInQueue(topic, queueId) - offset + restNum;
  }
  try {
    offset = getPopOffset(broker, topic, h, queueId, true);
    if (h.order) {
      // A blocked FIFO queue's backlog does not count: it would wake parked pops for nothing.
      if (
        pop.consumerOrderInfoManager.checkBlock(h.attemptId, topic, h.consumerGroup, queueId, h.invisibleTime)
      ) {
        return restNum;
      }
    }
    if (batch.messages.length >= h.maxMsgNums)
      return store.getMaxOffsetInQueue(topic, queueId) - offset + restNum;

    const want = h.maxMsgNums - batch.messages.length;
    let result = await store.getMessage(h.consumerGroup, topic, queueId, offset, want, batch.filter);
    if (REREAD_STATUSES.has(result.status)) {
      // The committed offset is outside the queue: start over from where the store says.
      broker.logger.warn('Pop initial offset, because store is no correct', {
        lockKey,
        from: String(offset),
        to: String(result.nextBeginOffset),
      });
      broker.consumerOffsetManager.commitOffset(
        batch.clientHost,
        h.consumerGroup,
        topic,
        queueId,
        result.nextBeginOffset,
      );
      offset = result.nextBeginOffset;
      result = await store.getMessage(h.consumerGroup, topic, queueId, offset, want, batch.filter);
    }
    const count = result.messages.length;
    if (count > 0) {
      const stats = broker.brokerStatsManager;
      stats.incBrokerGetNums(count);
      stats.incGroupGetNums(h.consumerGroup, topic, count);
      stats.incGroupGetSize(h.consumerGroup, topic, result.bufferTotalSize);
      if (h.order) {
        pop.consumerOrderInfoManager.update(
          h.attemptId,
          isRetry,
          topic,
          h.consumerGroup,
          queueId,
          BigInt(batch.popTime),
          h.invisibleTime,
          result.messageQueueOffsets,
          batch.orderCountInfo as string[],
        );
        broker.consumerOffsetManager.commitOffset(batch.clientHost, h.consumerGroup, topic, queueId, offset);
      } else {
        if (!(await appendCheckPoint(broker, batch, topic, queueId, offset, result.messageQueueOffsets))) {
          // Not handed out: no checkpoint could bring them back.
          return restNum + BigInt(count);
        }
        // Decision 3: the checkpoint is stored, so the group's offset moves past what was read.
        broker.consumerOffsetManager.commitOffset(
          batch.clientHost,
          h.consumerGroup,
          topic,
          queueId,
          result.nextBeginOffset,
        );
      }
      // Upstream PopInflightMessageCounter: ACK (or revive) counts them down.
      broker.popRevive.inflight.incrementInFlightMessageNum(topic, h.consumerGroup, queueId, count);
      batch.startOffsetInfo.push(startOffsetInfoItem(topic, queueId, offset));
      batch.msgOffsetInfo.push(msgOffsetInfoItem(topic, queueId, result.messageQueueOffsets));
    } else if (SKIPPED_STATUSES.has(result.status) && result.nextBeginOffset > -1n) {
      // Only filtered-out messages: their offsets are covered by committing past them.
      broker.consumerOffsetManager.commitOffset(
        batch.clientHost,
        h.consumerGroup,
        topic,
        queueId,
        result.nextBeginOffset,
      );
    }
    restNum = result.maxOffset - result.nextBeginOffset + restNum;
    const keepTopic = !isRetry || broker.config.popResponseReturnActualRetryTopic;
    for (const record of result.messages) {
      let out = record;
      if (!keepTopic) {
        try {
          out = retopic(broker, batch, record, offset);
        } catch (error) {
          broker.logger.error('Exception in recode retry message buffer', {
            topic,
            error: error instanceof Error ? error.message : String(error),
          });
          continue;
        }
      }
      batch.messages.push(out);
      batch.size += out.length;
    }
    return restNum;
  } finally {
    pop.queueLockManager.unLock(lockKey);
  }
}

/** Upstream popMsgFromTopic: every readable queue of the topic, from `randomQ` on. */
async function popMsgFromTopic(
  broker: BrokerContext,
  batch: PopBatch,
  topicConfig: Readonly<TopicConfig> | undefined,
  isRetry: boolean,
  randomQ: number,
  restNum: bigint,
): Promise<bigint> {
  if (topicConfig === undefined) return restNum;
  const n = topicConfig.readQueueNums;
  for (let i = 0; i < n; i++) {
    restNum = await popMsgFromQueue(
      broker,
      batch,
      topicConfig.topicName,
      isRetry,
      (randomQ + i) % n,
      restNum,
    );
  }
  return restNum;
}

/** One pass of upstream's processRequest; a parked request runs it again when woken. */
export async function processPopRequest(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const config = broker.config;
  // Upstream fills a missing or zero bornTime with now (into the request, so a re-run keeps it).
  const ext = request.extFields ?? {};
  if (ext[BORN_TIME] === undefined || ext[BORN_TIME] === '0') {
    ext[BORN_TIME] = String(broker.clock.now());
    request.extFields = ext;
  }
  const h = decodeHeader(PopMessageRequestHeader, ext);
  if (isPopTimeoutTooMuch(h, broker.clock.now())) {
    return refuse(
      request,
      ResponseCode5xReused.POLLING_TIMEOUT,
      `the broker[${config.brokerIP1}] pop message is timeout too much`,
    );
  }
  if (!PermName.isReadable(config.brokerPermission)) {
    return refuse(
      request,
      ResponseCode.NO_PERMISSION,
      `the broker[${config.brokerIP1}] pop message is forbidden`,
    );
  }
  if (h.maxMsgNums > POP_MAX_MSG_NUMS) {
    return refuse(
      request,
      ResponseCode.INVALID_PARAMETER,
      `the broker[${config.brokerIP1}] pop message's num is greater than 32`,
    );
  }
  if (!timerWheelEnableOf(config)) {
    return refuse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `the broker[${config.brokerIP1}] pop message is forbidden because timerWheelEnable is false`,
    );
  }
  const topicConfig = broker.topicConfigManager.selectTopicConfig(h.topic);
  if (topicConfig === undefined) {
    broker.logger.error('The topic not exist', { topic: h.topic, consumer: ctx.remoteAddress });
    return refuse(
      request,
      ResponseCode.TOPIC_NOT_EXIST,
      `topic[${h.topic}] not exist, apply first please! ${FAQ_TIP}`,
    );
  }
  if (!PermName.isReadable(topicConfig.perm)) {
    // Upstream's remark, "peeking" included.
    return refuse(request, ResponseCode.NO_PERMISSION, `the topic[${h.topic}] peeking message is forbidden`);
  }
  // Java's getter maps every negative id to -1, so only too large ids are refused.
  const queueId = h.queueId < 0 ? -1 : h.queueId;
  if (queueId >= topicConfig.readQueueNums) {
    const errorInfo = `queueId[${queueId}] is illegal, topic:[${h.topic}] topicConfig.readQueueNums:[${topicConfig.readQueueNums}] consumer:[/${ctx.remoteAddress}]`;
    broker.logger.warn(errorInfo);
    return refuse(request, ResponseCode.INVALID_PARAMETER, errorInfo);
  }
  const group = checkConsumeGroup(broker, request, h.consumerGroup, FAQ_TIP);
  if (isGroupRefusal(group)) return group;
  const built = buildFilter(broker, request, h);
  if (!('filter' in built)) return built;

  const pop = broker.pop;
  const randomQ = Math.floor(Math.random() * 100);
  const reviveQid = h.order ? POP_ORDER_REVIVE_QUEUE : pop.nextReviveQid(reviveQueueNumOf(config));
  const batch: PopBatch = {
    h: { ...h, queueId },
    popTime: broker.clock.now(),
    reviveQid,
    filter: built.filter,
    clientHost: ctx.remoteAddress,
    messages: [],
    size: 0,
    startOffsetInfo: [],
    msgOffsetInfo: [],
    orderCountInfo: h.order ? [] : undefined,
  };
  const retryTopic = buildPopRetryTopic(h.topic, h.consumerGroup, enableRetryTopicV2Of(config));
  const needRetry = randomQ < config.popFromRetryProbability;
  let restNum = 0n;
  if (needRetry && !h.order) {
    restNum = await popMsgFromTopic(
      broker,
      batch,
      broker.topicConfigManager.selectTopicConfig(retryTopic),
      true,
      randomQ,
      restNum,
    );
  }
  if (queueId < 0) restNum = await popMsgFromTopic(broker, batch, topicConfig, false, randomQ, restNum);
  else restNum = await popMsgFromQueue(broker, batch, topicConfig.topicName, false, queueId, restNum);
  if (!needRetry && batch.messages.length < h.maxMsgNums && !h.order) {
    restNum = await popMsgFromTopic(
      broker,
      batch,
      broker.topicConfigManager.selectTopicConfig(retryTopic),
      true,
      randomQ,
      restNum,
    );
  }

  let code: number;
  let status: string;
  if (batch.messages.length > 0) {
    code = ResponseCode.SUCCESS;
    status = GetMessageStatus.FOUND;
    pop.popStats.recordPop(h.consumerGroup, h.topic, batch.messages.length);
    // Others parked on this queue may find the rest (a pop of every queue and one of a queue do not wake each other).
    if (restNum > 0n) pop.popLongPollingService.notifyQueue(h.topic, queueId, h.consumerGroup);
  } else {
    let settle: (r: RemotingCommand | PromiseLike<RemotingCommand>) => void = () => {};
    const held = new Promise<RemotingCommand>((resolve) => {
      settle = resolve;
    });
    const header = { ...h, queueId };
    const result = pop.popLongPollingService.polling(ctx, request, header, built.filter, retryTopic, (r) =>
      settle(r),
    );
    if (result === 'POLLING_SUC') {
      ctx.park?.(request);
      if (restNum > 0n) pop.popLongPollingService.notifyQueue(h.topic, queueId, h.consumerGroup);
      return held;
    }
    code =
      result === 'POLLING_FULL' ? ResponseCode5xReused.POLLING_FULL : ResponseCode5xReused.POLLING_TIMEOUT;
    status = GetMessageStatus.NO_MESSAGE_IN_QUEUE;
  }
  const extFields = encodeHeader(PopMessageResponseHeader, {
    popTime: BigInt(batch.popTime),
    invisibleTime: h.invisibleTime,
    reviveQid,
    restNum,
    startOffsetInfo: joinInfo(batch.startOffsetInfo),
    msgOffsetInfo: joinInfo(batch.msgOffsetInfo),
    orderCountInfo: batch.orderCountInfo === undefined ? undefined : joinInfo(batch.orderCountInfo),
  });
  return createResponse(request, code, {
    remark: status,
    extFields,
    body: code === ResponseCode.SUCCESS ? joinRecords(batch.messages, batch.size) : undefined,
  });
}

export const popMessage: BrokerRequestHandler = (broker, ctx, request) =>
  processPopRequest(broker, ctx, request);

/**
 * Re-runs a woken pop in a later turn of the event loop (setImmediate, after pending I/O), so messages
 * dispatched together are popped together. Not a microtask: a parked pop that finds a queue locked by a
 * pop still awaiting its store I/O counts that queue's backlog into restNum and wakes its key again
 * (upstream's notify on restNum > 0); re-run as a microtask, that chain never yields to the I/O the
 * lock holder waits on and blocks the event loop until the poll time ends (15 s for the official
 * push consumer), so heartbeats and acks go unanswered and the client drops the connection.
 */
export function executePopRequestWhenWakeup(broker: BrokerContext, request: PopRequest): void {
  setImmediate(() => {
    if (!request.channelOpen) return;
    request.respond(processPopRequest(broker, request.ctx, request.remotingCommand));
  });
}
