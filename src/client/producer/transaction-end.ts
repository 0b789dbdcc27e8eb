/**
 * What END_TRANSACTION says after a local transaction (upstream DefaultMQProducerImpl.endTransaction)
 * and after a broker's check (checkTransactionState's processTransactionState): the half message is
 * named by its commit log offset and its queue offset in the half topic, the answer by a MessageSysFlag
 * transaction type, and a listener's failure travels in the remark, worded as upstream words it.
 */
import { ValidationError } from '../../common/errors.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { decodeOffsetMsgId } from '../../common/message/message-id.js';
import type { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import type { EndTransactionHeader } from '../instance/requests/end-transaction.js';
import type { SendResult } from '../instance/requests/send-message.js';
import {
  isLocalTransactionState,
  LocalTransactionState,
  transactionTypeOf,
} from './local-transaction-state.js';

/** A listener's answer, and why it became UNKNOW when it was not one. */
export interface SettledState {
  readonly state: LocalTransactionState;
  /** What the listener threw, or the complaint about what it returned. */
  readonly error: unknown;
}

/**
 * Runs a listener and reads its answer: a state is taken as it is; nothing (upstream's null) is
 * UNKNOW; anything else, or a throw or rejection, is UNKNOW with the error kept for the remark.
 */
export async function settle(listenerName: string, run: () => unknown): Promise<SettledState> {
  let answer: unknown;
  try {
    answer = await run();
  } catch (error) {
    return { state: LocalTransactionState.UNKNOW, error };
  }
  if (isLocalTransactionState(answer)) return { state: answer, error: undefined };
  if (answer === undefined || answer === null) {
    return { state: LocalTransactionState.UNKNOW, error: undefined };
  }
  const shown = typeof answer === 'string' ? JSON.stringify(answer.slice(0, 64)) : typeof answer;
  return {
    state: LocalTransactionState.UNKNOW,
    error: new ValidationError(
      `${listenerName} returned ${shown}, not COMMIT_MESSAGE, ROLLBACK_MESSAGE or UNKNOW`,
      -1,
    ),
  };
}

/** The END_TRANSACTION after the local transaction of a half message just sent. */
export function endHeaderAfterSend(
  producerGroup: string,
  sendResult: SendResult,
  transactionId: string | undefined,
  state: LocalTransactionState,
): EndTransactionHeader {
  // The broker's id holds the commit log offset; the client id (UNIQ_KEY) does not decode, which
  // is the failure upstream meets too when a broker sends no offset id.
  const id = decodeOffsetMsgId(sendResult.offsetMsgId === '' ? sendResult.msgId : sendResult.offsetMsgId);
  return {
    producerGroup,
    tranStateTableOffset: sendResult.queueOffset,
    commitLogOffset: id.offset,
    commitOrRollback: transactionTypeOf(state),
    fromTransactionCheck: false,
    msgId: sendResult.msgId,
    transactionId,
    bname: sendResult.messageQueue.brokerName,
  };
}

/** The END_TRANSACTION answering a broker's CHECK_TRANSACTION_STATE about `msg`. */
export function endHeaderAfterCheck(
  producerGroup: string,
  msg: MessageExt,
  check: CheckTransactionStateRequestHeader,
  state: LocalTransactionState,
): EndTransactionHeader {
  return {
    producerGroup,
    tranStateTableOffset: check.tranStateTableOffset,
    commitLogOffset: check.commitLogOffset,
    commitOrRollback: transactionTypeOf(state),
    fromTransactionCheck: true,
    msgId: msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) ?? msg.offsetMsgId,
    transactionId: check.transactionId,
    bname: check.bname,
  };
}

/** Java's Throwable.toString() for a JavaScript value: `Name: message`. */
function throwableText(error: unknown): string {
  return error instanceof Error ? String(error) : `Error: ${String(error)}`;
}

/** The remark of END_TRANSACTION when the local transaction failed (upstream's wording). */
export function executeRemark(error: unknown): string {
  return `executeLocalTransactionBranch exception: ${throwableText(error)}`;
}

/**
 * The remark when the check listener failed: upstream's RemotingHelper.exceptionSimpleDesc, the
 * error and the frame it was thrown from.
 */
export function checkRemark(error: unknown): string {
  let text = throwableText(error);
  const frame = error instanceof Error ? firstFrame(error.stack) : undefined;
  if (frame !== undefined) text += `, ${frame}`;
  return `checkLocalTransactionState Exception: ${text}`;
}

function firstFrame(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  for (const line of stack.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('at ')) return trimmed.slice(3);
  }
  return undefined;
}
