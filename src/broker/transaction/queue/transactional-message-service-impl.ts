/**
 * TransactionalMessageServiceImpl (`broker/.../transaction/queue/TransactionalMessageServiceImpl.java`,
 * 4.9.8). Half messages live in RMQ_SYS_TRANS_HALF_TOPIC; committing or rolling one back writes an op
 * message (tag `d`, body = the half message's queue offset) to the same queue id of
 * RMQ_SYS_TRANS_OP_HALF_TOPIC. The check walks each half queue from CID_RMQ_SYS_TRANS's offset,
 * skipping half messages the op queue settles. An unsettled one old enough (transactionTimeOut, or
 * its CHECK_IMMUNITY_TIME_IN_SECONDS) is written back to the end of the half queue with
 * TRANSACTION_CHECK_TIMES + 1 and its producer is asked about the copy; after transactionCheckMax
 * checks it is discarded instead. Both offsets then move past what was settled.
 *
 * Time is the broker's clock. Two places where upstream spins until its 60 s per-queue limit, with
 * nothing to gain, stop at once with the same outcome (the message waits for the next pass): an
 * unsettled message that is not due yet while the op queue has nothing more, and a half message
 * that cannot be written back.
 */
import type { Clock } from '../../../common/clock.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { parseJavaInt, parseJavaLong } from '../../../remoting/protocol/header-schema.js';
import type { EndTransactionRequestHeader } from '../../../remoting/protocol/headers/end-transaction-request-header.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { PutMessageStatus } from '../../../store/put-message-result.js';
import type { OperationResult } from '../operation-result.js';
import type {
  TransactionalMessageCheckListener,
  TransactionalMessageService,
} from '../transactional-message-service.js';
import { type GetResult, type PullResult, PullStatus } from './get-result.js';
import type { TransactionalMessageBridge } from './transactional-message-bridge.js';
import { TransactionalMessageUtil } from './transactional-message-util.js';

/** Half messages read per step (upstream PULL_MSG_RETRY_NUMBER). */
const PULL_MSG_RETRY_NUMBER = 1;
/** ms one queue's check may take before the rest waits for the next pass (upstream MAX_PROCESS_TIME_LIMIT). */
export const MAX_PROCESS_TIME_LIMIT = 60_000;
/** Unreadable half offsets skipped per queue and pass (upstream MAX_RETRY_COUNT_WHEN_HALF_NULL). */
const MAX_RETRY_COUNT_WHEN_HALF_NULL = 1;
/** Op messages read per step (upstream's literal 32). */
const OP_PULL_NUMS = 32;
const HOURS = 3600 * 1000;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function hasMessages(pullResult: PullResult): boolean {
  return (pullResult.msgFoundList?.length ?? 0) > 0;
}

export interface TransactionalMessageServiceOptions {
  clock: Clock;
  logger: Logger;
  /** Hours the commit log keeps files (fileReservedTime): older half messages are given up. */
  fileReservedTime: () => number;
}

export class TransactionalMessageServiceImpl implements TransactionalMessageService {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly fileReservedTime: () => number;

  constructor(
    readonly transactionalMessageBridge: TransactionalMessageBridge,
    options: TransactionalMessageServiceOptions,
  ) {
    this.clock = options.clock;
    this.logger = options.logger;
    this.fileReservedTime = options.fileReservedTime;
  }

  /** Counts this check in TRANSACTION_CHECK_TIMES, or says the message was checked often enough. */
  private needDiscard(msgExt: MessageExt, transactionCheckMax: number): boolean {
    const checkTimes = msgExt.getProperty(MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES);
    let checkTime = 1;
    if (checkTimes !== undefined) {
      checkTime = this.getInt(checkTimes);
      if (checkTime >= transactionCheckMax) return true;
      checkTime++;
    }
    msgExt.putProperty(MessageConst.PROPERTY_TRANSACTION_CHECK_TIMES, String(checkTime));
    return false;
  }

  private needSkip(msgExt: MessageExt): boolean {
    const age = this.clock.now() - Number(msgExt.bornTimestamp);
    if (age > this.fileReservedTime() * HOURS) {
      this.logger.info('Half message exceed file reserved time ,so skip it', {
        offsetMsgId: msgExt.offsetMsgId,
        bornTimestamp: msgExt.bornTimestamp,
      });
      return true;
    }
    return false;
  }

  /** Writes the half message again for its next check; `msgExt` then names the copy. */
  private async putBackHalfMsgQueue(msgExt: MessageExt, offset: bigint): Promise<boolean> {
    const bridge = this.transactionalMessageBridge;
    let status: string;
    try {
      const result = await bridge.putMessageReturnResult(bridge.renewHalfMessageInner(msgExt));
      const append = result.appendMessageResult;
      if (result.putMessageStatus === PutMessageStatus.PUT_OK && append !== undefined) {
        msgExt.queueOffset = append.logicsOffset;
        msgExt.commitLogOffset = append.wroteOffset;
        msgExt.offsetMsgId = append.msgId;
        this.logger.debug('Send check message', {
          offset,
          queueOffset: msgExt.queueOffset,
          commitLogOffset: msgExt.commitLogOffset,
          newMsgId: msgExt.offsetMsgId,
          realMsgId: msgExt.getUserProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
        });
        return true;
      }
      status = result.putMessageStatus;
    } catch (error) {
      status = describe(error);
    }
    this.logger.error('PutBackToHalfQueueReturnResult write failed', {
      topic: msgExt.topic,
      queueId: msgExt.queueId,
      offsetMsgId: msgExt.offsetMsgId,
      status,
    });
    return false;
  }

  async check(
    transactionTimeout: number,
    transactionCheckMax: number,
    listener: TransactionalMessageCheckListener,
  ): Promise<void> {
    try {
      const topic = TransactionalMessageUtil.buildHalfTopic();
      const msgQueues = this.transactionalMessageBridge.fetchMessageQueues(topic);
      if (msgQueues.length === 0) {
        this.logger.warn('The queue of topic is empty', { topic });
        return;
      }
      for (const messageQueue of msgQueues) {
        await this.checkQueue(messageQueue, transactionTimeout, transactionCheckMax, listener);
      }
    } catch (error) {
      this.logger.error('Check error', { error: describe(error) });
    }
  }

  private async checkQueue(
    messageQueue: MessageQueue,
    transactionTimeout: number,
    transactionCheckMax: number,
    listener: TransactionalMessageCheckListener,
  ): Promise<void> {
    const bridge = this.transactionalMessageBridge;
    const startTime = this.clock.now();
    const opQueue = this.getOpQueue(messageQueue);
    const halfOffset = bridge.fetchConsumeOffset(messageQueue);
    const opOffset = bridge.fetchConsumeOffset(opQueue);
    this.logger.debug('Before check', { queueId: messageQueue.queueId, halfOffset, opOffset });
    if (halfOffset < 0n || opOffset < 0n) {
      this.logger.error('illegal offset read, skip this queue', {
        queueId: messageQueue.queueId,
        halfOffset,
        opOffset,
      });
      return;
    }
    const doneOpOffset: bigint[] = [];
    const removeMap = new Map<bigint, bigint>();
    let opPulledFrom = opOffset;
    let pullResult = await this.fillOpRemoveMap(removeMap, opQueue, opPulledFrom, halfOffset, doneOpOffset);
    let getMessageNullCount = 1;
    let newOffset = halfOffset;
    let i = halfOffset;
    for (;;) {
      if (this.clock.now() - startTime > MAX_PROCESS_TIME_LIMIT) {
        this.logger.info('Queue process time reach max', { queueId: messageQueue.queueId });
        break;
      }
      const removedOpOffset = removeMap.get(i);
      if (removedOpOffset !== undefined) {
        removeMap.delete(i);
        doneOpOffset.push(removedOpOffset);
      } else {
        const getResult = await this.getHalfMsg(messageQueue, i);
        const msgExt = getResult.msg;
        if (msgExt === undefined) {
          if (getMessageNullCount++ > MAX_RETRY_COUNT_WHEN_HALF_NULL) break;
          const pulled = getResult.pullResult;
          if (pulled === undefined || pulled.pullStatus === PullStatus.NO_NEW_MSG) break;
          this.logger.info('Illegal offset, the miss offset', { offset: i, status: pulled.pullStatus });
          i = pulled.nextBeginOffset;
          newOffset = i;
          continue;
        }
        if (this.needDiscard(msgExt, transactionCheckMax) || this.needSkip(msgExt)) {
          await listener.resolveDiscardMsg(msgExt);
          newOffset = i + 1n;
          i++;
          continue;
        }
        if (Number(msgExt.storeTimestamp) >= startTime) {
          // Stored during this pass (the copies it writes back end up here): the next pass sees them.
          break;
        }
        const valueOfCurrentMinusBorn = this.clock.now() - Number(msgExt.bornTimestamp);
        let checkImmunityTime = transactionTimeout;
        const checkImmunityTimeStr = msgExt.getUserProperty(
          MessageConst.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS,
        );
        if (checkImmunityTimeStr !== undefined) {
          checkImmunityTime = this.getImmunityTime(checkImmunityTimeStr, transactionTimeout);
          if (
            valueOfCurrentMinusBorn < checkImmunityTime &&
            (await this.checkPrepareQueueOffset(removeMap, doneOpOffset, msgExt))
          ) {
            newOffset = i + 1n;
            i++;
            continue;
          }
        } else if (valueOfCurrentMinusBorn >= 0 && valueOfCurrentMinusBorn < checkImmunityTime) {
          // Too young to ask about; so is everything after it.
          break;
        }
        const opMsg = pullResult.msgFoundList;
        const lastOp = opMsg?.[opMsg.length - 1];
        const isNeedCheck =
          (lastOp === undefined && valueOfCurrentMinusBorn > checkImmunityTime) ||
          (lastOp !== undefined && Number(lastOp.bornTimestamp) - startTime > transactionTimeout) ||
          valueOfCurrentMinusBorn <= -1;
        if (isNeedCheck) {
          if (!(await this.putBackHalfMsgQueue(msgExt, i))) break;
          listener.resolveHalfMsg(msgExt);
        } else {
          // More op messages may settle it; when there are none, it waits for the next pass.
          if (
            !hasMessages(pullResult) &&
            (pullResult.pullStatus === PullStatus.NO_NEW_MSG || pullResult.nextBeginOffset === opPulledFrom)
          ) {
            break;
          }
          opPulledFrom = pullResult.nextBeginOffset;
          pullResult = await this.fillOpRemoveMap(removeMap, opQueue, opPulledFrom, halfOffset, doneOpOffset);
          continue;
        }
      }
      newOffset = i + 1n;
      i++;
    }
    if (newOffset !== halfOffset) bridge.updateConsumeOffset(messageQueue, newOffset);
    const newOpOffset = this.calculateOpOffset(doneOpOffset, opOffset);
    if (newOpOffset !== opOffset) bridge.updateConsumeOffset(opQueue, newOpOffset);
  }

  private getImmunityTime(checkImmunityTimeStr: string, transactionTimeout: number): number {
    const checkImmunityTime = this.getLong(checkImmunityTimeStr);
    return checkImmunityTime === -1n ? transactionTimeout : Number(checkImmunityTime) * 1000;
  }

  /**
   * Reads up to 32 op messages from `pullOffsetOfOp`: each names a settled half offset, remembered
   * in `removeMap` (half offset -> op offset), or, when below `miniOffset` (already passed),
   * counted as done in `doneOpOffset`.
   */
  private async fillOpRemoveMap(
    removeMap: Map<bigint, bigint>,
    opQueue: MessageQueue,
    pullOffsetOfOp: bigint,
    miniOffset: bigint,
    doneOpOffset: bigint[],
  ): Promise<PullResult> {
    const pullResult = await this.transactionalMessageBridge.getOpMessage(
      opQueue.queueId,
      pullOffsetOfOp,
      OP_PULL_NUMS,
    );
    if (
      pullResult.pullStatus === PullStatus.OFFSET_ILLEGAL ||
      pullResult.pullStatus === PullStatus.NO_MATCHED_MSG
    ) {
      this.logger.warn('The miss op offset is illegal', {
        offset: pullOffsetOfOp,
        queueId: opQueue.queueId,
        status: pullResult.pullStatus,
      });
      this.transactionalMessageBridge.updateConsumeOffset(opQueue, pullResult.nextBeginOffset);
      return pullResult;
    }
    if (pullResult.pullStatus === PullStatus.NO_NEW_MSG) return pullResult;
    for (const opMessageExt of pullResult.msgFoundList ?? []) {
      const queueOffset = this.getLong(opMessageExt.body.toString('utf8'));
      if (opMessageExt.tags === TransactionalMessageUtil.REMOVETAG) {
        if (queueOffset < miniOffset) doneOpOffset.push(opMessageExt.queueOffset);
        else removeMap.set(queueOffset, opMessageExt.queueOffset);
      } else {
        this.logger.error('Found a illegal tag in opMessageExt', {
          queueOffset: opMessageExt.queueOffset,
          tags: opMessageExt.tags,
        });
      }
    }
    return pullResult;
  }

  /**
   * A half message in its immunity time: true when it is settled (its original's queue offset is
   * in `removeMap`) or was written back to wait; false to treat it like any other.
   */
  private async checkPrepareQueueOffset(
    removeMap: Map<bigint, bigint>,
    doneOpOffset: bigint[],
    msgExt: MessageExt,
  ): Promise<boolean> {
    const prepareQueueOffsetStr = msgExt.getUserProperty(
      MessageConst.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET,
    );
    if (prepareQueueOffsetStr === undefined) return this.putImmunityMsgBackToHalfQueue(msgExt);
    const prepareQueueOffset = this.getLong(prepareQueueOffsetStr);
    if (prepareQueueOffset === -1n) return false;
    const tmpOpOffset = removeMap.get(prepareQueueOffset);
    if (tmpOpOffset !== undefined) {
      removeMap.delete(prepareQueueOffset);
      doneOpOffset.push(tmpOpOffset);
      return true;
    }
    return this.putImmunityMsgBackToHalfQueue(msgExt);
  }

  private putImmunityMsgBackToHalfQueue(messageExt: MessageExt): Promise<boolean> {
    const bridge = this.transactionalMessageBridge;
    return bridge.putMessage(bridge.renewImmunityHalfMessageInner(messageExt));
  }

  /** Java Long.parseLong, -1 for what does not parse (logged), as upstream's getLong. */
  private getLong(s: string): bigint {
    const v = parseJavaLong(s);
    if (v === undefined) {
      this.logger.error('GetLong error', { value: s });
      return -1n;
    }
    return v;
  }

  private getInt(s: string): number {
    const v = parseJavaInt(s);
    if (v === undefined) {
      this.logger.error('GetInt error', { value: s });
      return -1;
    }
    return v;
  }

  /** The op offset after every op message read and settled, up to the first gap. */
  private calculateOpOffset(doneOffset: bigint[], oldOffset: bigint): bigint {
    doneOffset.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let newOffset = oldOffset;
    for (const offset of doneOffset) {
      if (offset === newOffset) newOffset++;
      else break;
    }
    return newOffset;
  }

  private getOpQueue(messageQueue: MessageQueue): MessageQueue {
    return new MessageQueue(
      TransactionalMessageUtil.buildOpTopic(),
      messageQueue.brokerName,
      messageQueue.queueId,
    );
  }

  private async getHalfMsg(messageQueue: MessageQueue, offset: bigint): Promise<GetResult> {
    const pullResult = await this.transactionalMessageBridge.getHalfMessage(
      messageQueue.queueId,
      offset,
      PULL_MSG_RETRY_NUMBER,
    );
    return { msg: pullResult.msgFoundList?.[0], pullResult };
  }

  private getHalfMessageByOffset(commitLogOffset: bigint): OperationResult {
    const messageExt = this.transactionalMessageBridge.lookMessageByOffset(commitLogOffset);
    if (messageExt !== undefined) {
      return { prepareMessage: messageExt, responseCode: ResponseCode.SUCCESS, responseRemark: undefined };
    }
    return {
      prepareMessage: undefined,
      responseCode: ResponseCode.SYSTEM_ERROR,
      responseRemark: 'Find prepared transaction message failed',
    };
  }

  async deletePrepareMessage(msgExt: MessageExt): Promise<boolean> {
    if (await this.transactionalMessageBridge.putOpMessage(msgExt, TransactionalMessageUtil.REMOVETAG)) {
      this.logger.debug('Transaction op message write successfully', {
        offsetMsgId: msgExt.offsetMsgId,
        queueId: msgExt.queueId,
      });
      return true;
    }
    this.logger.error('Transaction op message write failed', {
      offsetMsgId: msgExt.offsetMsgId,
      queueId: msgExt.queueId,
    });
    return false;
  }

  commitMessage(requestHeader: EndTransactionRequestHeader): OperationResult {
    return this.getHalfMessageByOffset(requestHeader.commitLogOffset);
  }

  rollbackMessage(requestHeader: EndTransactionRequestHeader): OperationResult {
    return this.getHalfMessageByOffset(requestHeader.commitLogOffset);
  }

  open(): boolean {
    return true;
  }

  close(): void {}
}
