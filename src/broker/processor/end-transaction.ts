/**
 * END_TRANSACTION (37), upstream EndTransactionProcessor (4.9.8). The producer (after its local
 * transaction, or answering CHECK_TRANSACTION_STATE with fromTransactionCheck) names a half message
 * by its commit log offset and queue offset:
 * - COMMIT (8): the half message is checked (producer group, queue offset, commit log offset), stored
 *   again under its REAL_TOPIC / REAL_QID with the COMMIT transaction type, and then settled by an
 *   op message; the answer is the store's outcome;
 * - ROLLBACK (12): the half message is checked and settled; nothing is delivered;
 * - NOT_TYPE (0, unknown): nothing happens; the check service will ask again.
 * The official producer sends it oneway, so none of this is answered to it; a two-way caller gets
 * the response. Where upstream answers a two-way NOT_TYPE with nothing at all, we answer SUCCESS
 * (every request the broker serves gets an answer). fromTransactionCheck only changes the log lines.
 *
 * As upstream, the committed message keeps the half message's properties string (REAL_TOPIC,
 * REAL_QID and TRAN_MSG included: Java builds the string before clearing them) in Java's HashMap
 * order. Beyond upstream's checks, a message outside RMQ_SYS_TRANS_HALF_TOPIC, or one without the
 * PGROUP / REAL_TOPIC / REAL_QID it needs, is refused with SYSTEM_ERROR and a remark saying so
 * (upstream stores a copy of any message that passes its checks, or fails with an exception).
 */

import { ValidationError } from '../../common/errors.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { MessageSysFlag, resetTransactionValue } from '../../common/message/sysflag.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, parseJavaInt } from '../../remoting/protocol/header-schema.js';
import { EndTransactionRequestHeader } from '../../remoting/protocol/headers/end-transaction-request-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type PutMessageResult, PutMessageStatus } from '../../store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';
import { javaPropertiesString } from '../transaction/queue/transactional-message-bridge.js';
import { TransactionalMessageUtil } from '../transaction/queue/transactional-message-util.js';
import { type BrokerContext, type BrokerRequestHandler, isSlave } from './broker-context.js';
import { handleScheduleMessage, timerHookContext } from './handle-schedule-message.js';
import { timerRefusalResponse } from './send-message-support.js';

const { TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE, TRANSACTION_ROLLBACK_TYPE } = MessageSysFlag;

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** EndTransactionRequestHeader.checkFields: only the three transaction types are accepted. */
function checkFields(h: EndTransactionRequestHeader): void {
  const t = h.commitOrRollback;
  if (t === TRANSACTION_NOT_TYPE || t === TRANSACTION_COMMIT_TYPE || t === TRANSACTION_ROLLBACK_TYPE) return;
  throw new ValidationError(`commitOrRollback field wrong: ${t} (0 = unknown, 8 = commit, 12 = rollback)`);
}

/** One line per outcome a producer reports (info: quiet by default, as every other per-message event). */
function logRequest(
  broker: BrokerContext,
  remoteAddress: string,
  h: EndTransactionRequestHeader,
  remark?: string,
) {
  const fields = {
    producer: remoteAddress,
    producerGroup: h.producerGroup,
    tranStateTableOffset: h.tranStateTableOffset,
    commitLogOffset: h.commitLogOffset,
    msgId: h.msgId,
    remark,
  };
  const t = h.commitOrRollback;
  if (h.fromTransactionCheck) {
    const what =
      t === TRANSACTION_NOT_TYPE
        ? "it's pending status"
        : t === TRANSACTION_COMMIT_TYPE
          ? 'the producer commit the message'
          : 'the producer rollback the message';
    broker.logger.info(`Check producer transaction state, ${what}`, fields);
  } else if (t === TRANSACTION_NOT_TYPE) {
    broker.logger.info("The producer end transaction in sending message, and it's pending status", fields);
  } else if (t === TRANSACTION_ROLLBACK_TYPE) {
    broker.logger.info('The producer end transaction in sending message, rollback the message', fields);
  }
}

/**
 * checkPrepareMessage, plus what upstream leaves to exceptions: the message must be a half message
 * carrying the producer group.
 */
function checkPrepareMessage(
  request: RemotingCommand,
  msgExt: MessageExt | undefined,
  h: EndTransactionRequestHeader,
): RemotingCommand {
  const fail = (remark: string) => createResponse(request, ResponseCode.SYSTEM_ERROR, { remark });
  if (msgExt === undefined) return fail('Find prepared transaction message failed');
  if (msgExt.topic !== TransactionalMessageUtil.buildHalfTopic()) {
    return fail(
      `The message at commit log offset ${h.commitLogOffset} is not a prepared transaction message (topic ${msgExt.topic})`,
    );
  }
  const pgroupRead = msgExt.getProperty(MessageConst.PROPERTY_PRODUCER_GROUP);
  if (pgroupRead === undefined)
    return fail('The prepared transaction message has no producer group (PGROUP)');
  if (pgroupRead !== h.producerGroup) return fail('The producer group wrong');
  if (msgExt.queueOffset !== h.tranStateTableOffset) return fail('The transaction state table offset wrong');
  if (msgExt.commitLogOffset !== h.commitLogOffset) return fail('The commit log offset wrong');
  return createResponse(request, ResponseCode.SUCCESS);
}

/**
 * endMessageTransaction: the half message as its producer meant it, in its real topic and queue,
 * stored with the COMMIT type and the half message's commit log offset as prepared offset.
 */
function endMessageTransaction(
  msgExt: MessageExt,
  h: EndTransactionRequestHeader,
): MessageExtBrokerInner | string {
  const topic = msgExt.getUserProperty(MessageConst.PROPERTY_REAL_TOPIC);
  const realQueueId = msgExt.getUserProperty(MessageConst.PROPERTY_REAL_QUEUE_ID);
  const queueId = realQueueId === undefined ? undefined : parseJavaInt(realQueueId);
  if (topic === undefined || queueId === undefined) {
    return `The prepared transaction message has no valid REAL_TOPIC / REAL_QID (${topic} / ${realQueueId})`;
  }
  return {
    topic,
    queueId,
    flag: msgExt.flag,
    body: msgExt.body,
    propertiesString: javaPropertiesString(msgExt.properties),
    tagsCode: tagsString2tagsCode(msgExt.tags),
    sysFlag: resetTransactionValue(msgExt.sysFlag, h.commitOrRollback),
    bornTimestamp: msgExt.bornTimestamp,
    bornHost: msgExt.bornHost,
    storeHost: msgExt.storeHost,
    reconsumeTimes: msgExt.reconsumeTimes,
    preparedTransactionOffset: h.commitLogOffset,
    waitStoreMsgOK: false,
  };
}

/** sendFinalMessage: the store's outcome in upstream's codes and remarks (flush and slave timeouts count as stored). */
function finalResponse(
  broker: BrokerContext,
  request: RemotingCommand,
  result: PutMessageResult,
): RemotingCommand {
  const answer = (code: number, remark?: string) => createResponse(request, code, { remark });
  switch (result.putMessageStatus) {
    case PutMessageStatus.PUT_OK:
    case PutMessageStatus.FLUSH_DISK_TIMEOUT:
    case PutMessageStatus.FLUSH_SLAVE_TIMEOUT:
    case PutMessageStatus.SLAVE_NOT_AVAILABLE:
      return answer(ResponseCode.SUCCESS);
    case PutMessageStatus.CREATE_MAPEDFILE_FAILED:
      return answer(ResponseCode.SYSTEM_ERROR, 'Create mapped file failed.');
    case PutMessageStatus.MESSAGE_ILLEGAL:
    case PutMessageStatus.PROPERTIES_SIZE_EXCEEDED:
      return answer(
        ResponseCode.MESSAGE_ILLEGAL,
        `The message is illegal, maybe msg body or properties length not matched. msg body length limit ${broker.storeConfig.maxMessageSize}B, msg properties length limit 32KB.`,
      );
    case PutMessageStatus.SERVICE_NOT_AVAILABLE:
      return answer(ResponseCode.SERVICE_NOT_AVAILABLE, 'Service not available now.');
    case PutMessageStatus.OS_PAGECACHE_BUSY:
      return answer(ResponseCode.SYSTEM_ERROR, 'OS page cache busy, please try another machine');
    case PutMessageStatus.UNKNOWN_ERROR:
      return answer(ResponseCode.SYSTEM_ERROR, 'UNKNOWN_ERROR');
    default:
      return answer(ResponseCode.SYSTEM_ERROR, 'UNKNOWN_ERROR DEFAULT');
  }
}

async function sendFinalMessage(
  broker: BrokerContext,
  request: RemotingCommand,
  msgInner: MessageExtBrokerInner,
): Promise<RemotingCommand> {
  try {
    // Upstream's put hook transforms a committed timer message here (its half message was not).
    const refusal = handleScheduleMessage(timerHookContext(broker), msgInner);
    if (refusal !== undefined) {
      const [code, remark] = timerRefusalResponse(broker, refusal);
      return createResponse(request, code, { remark });
    }
    return finalResponse(broker, request, await broker.messageStore.putMessage(msgInner));
  } catch (error) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `store putMessage failed: ${describe(error)}`,
    });
  }
}

export const endTransaction: BrokerRequestHandler = async (broker, ctx, request) => {
  const h = decodeHeader(EndTransactionRequestHeader, request.extFields);
  checkFields(h);
  if (isSlave(broker)) {
    broker.logger.warn('Message store is slave mode, so end transaction is forbidden.');
    // Upstream sets only the code, so the response keeps createResponseCommand's default remark.
    return createResponse(request, ResponseCode.SLAVE_NOT_AVAILABLE, { remark: 'not set any response code' });
  }
  logRequest(broker, ctx.remoteAddress, h, request.remark);
  const service = broker.transactionalMessageService;
  if (h.commitOrRollback === TRANSACTION_NOT_TYPE) {
    return createResponse(request, ResponseCode.SUCCESS, {
      remark: 'transaction state unknown: the half message stays prepared and will be checked',
    });
  }
  const result =
    h.commitOrRollback === TRANSACTION_COMMIT_TYPE ? service.commitMessage(h) : service.rollbackMessage(h);
  if (result.responseCode !== ResponseCode.SUCCESS) {
    return createResponse(request, result.responseCode, { remark: result.responseRemark });
  }
  const prepared = result.prepareMessage;
  const res = checkPrepareMessage(request, prepared, h);
  if (res.code !== ResponseCode.SUCCESS || prepared === undefined) return res;
  if (h.commitOrRollback === TRANSACTION_ROLLBACK_TYPE) {
    await service.deletePrepareMessage(prepared);
    return res;
  }
  const msgInner = endMessageTransaction(prepared, h);
  if (typeof msgInner === 'string')
    return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: msgInner });
  const sendResult = await sendFinalMessage(broker, request, msgInner);
  if (sendResult.code === ResponseCode.SUCCESS) await service.deletePrepareMessage(prepared);
  return sendResult;
};
