/**
 * TransactionalMessageService (`broker/.../transaction/TransactionalMessageService.java`): what the
 * END_TRANSACTION processor and the check service ask of the half-message store.
 */
import type { MessageExt } from '../../common/message/message.js';
import type { EndTransactionRequestHeader } from '../../remoting/protocol/headers/end-transaction-request-header.js';
import type { OperationResult } from './operation-result.js';

/**
 * What a check pass hands its findings to (upstream AbstractTransactionalMessageCheckListener's
 * contract). An interface here so the service does not depend on the broker context the listener uses.
 */
export interface TransactionalMessageCheckListener {
  /** Asks the producer group of a half message about its transaction (CHECK_TRANSACTION_STATE). */
  resolveHalfMsg(msgExt: MessageExt): void;
  /** A half message checked transactionCheckMax times: kept aside, never delivered. */
  resolveDiscardMsg(msgExt: MessageExt): Promise<void>;
}

export interface TransactionalMessageService {
  /** Writes the op message that marks the half message committed or rolled back. */
  deletePrepareMessage(messageExt: MessageExt): Promise<boolean>;
  /** The half message a COMMIT names (by its commit log offset). */
  commitMessage(requestHeader: EndTransactionRequestHeader): OperationResult;
  /** The half message a ROLLBACK names (by its commit log offset). */
  rollbackMessage(requestHeader: EndTransactionRequestHeader): OperationResult;
  /**
   * One pass over every half queue: half messages older than `transactionTimeout` that no op
   * message settles are written back and handed to `listener` to ask their producer; those checked
   * `transactionCheckMax` times already are discarded through the listener. Never rejects.
   */
  check(
    transactionTimeout: number,
    transactionCheckMax: number,
    listener: TransactionalMessageCheckListener,
  ): Promise<void>;
  open(): boolean;
  close(): void;
}
