/**
 * Upstream `LocalTransactionState`: what a local transaction came to, and the transaction type of
 * MessageSysFlag that END_TRANSACTION carries for it. `UNKNOW` keeps upstream's spelling, which is
 * also what the official clients and brokers print.
 */
import { MessageSysFlag } from '../../common/message/sysflag.js';

export const LocalTransactionState = {
  /** The half message becomes visible to consumers. */
  COMMIT_MESSAGE: 'COMMIT_MESSAGE',
  /** The half message is dropped; consumers never see it. */
  ROLLBACK_MESSAGE: 'ROLLBACK_MESSAGE',
  /** Not decided yet: the broker asks the group again later (CHECK_TRANSACTION_STATE). */
  UNKNOW: 'UNKNOW',
} as const;
export type LocalTransactionState = (typeof LocalTransactionState)[keyof typeof LocalTransactionState];

/**
 * What an executor or check listener returns, from a plain or an async function. The promise may
 * carry any string besides the three states because TypeScript widens the one literal an async
 * function returns when the expected return type is a union: without it an async
 * `return 'COMMIT_MESSAGE'` would not type-check. A plain function is checked strictly; an answer
 * that is no state counts as UNKNOW at run time (with the error kept for the broker's remark).
 */
export type LocalTransactionAnswer =
  | LocalTransactionState
  | Promise<LocalTransactionState | (string & Record<never, never>)>;

const STATES: ReadonlySet<unknown> = new Set(Object.values(LocalTransactionState));

export function isLocalTransactionState(value: unknown): value is LocalTransactionState {
  return STATES.has(value);
}

/** END_TRANSACTION's commitOrRollback for `state`. */
export function transactionTypeOf(state: LocalTransactionState): number {
  switch (state) {
    case LocalTransactionState.COMMIT_MESSAGE:
      return MessageSysFlag.TRANSACTION_COMMIT_TYPE;
    case LocalTransactionState.ROLLBACK_MESSAGE:
      return MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
    default:
      return MessageSysFlag.TRANSACTION_NOT_TYPE;
  }
}
