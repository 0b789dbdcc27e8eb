/**
 * The queue allocation arithmetic of upstream's AllocateMessageQueueAveragely and
 * AllocateMessageQueueAveragelyByCircle, shared by the client's strategies (client-side rebalance)
 * and the broker's QUERY_ASSIGNMENT (server-side rebalance, which upstream runs with the client's
 * classes). Inputs arrive sorted (queues by MessageQueue.compare, ids by Java String order).
 */
import { ValidationError } from '../errors.js';
import type { MessageQueue } from '../message/message-queue.js';

/**
 * AbstractAllocateMessageQueueStrategy.check: empty inputs throw upstream's messages; false when
 * `currentCID` is not among `cidAll` (the member then takes no queue).
 */
export function checkAllocateInput(
  currentCID: string | null | undefined,
  mqAll: readonly MessageQueue[] | null | undefined,
  cidAll: readonly string[] | null | undefined,
): boolean {
  if (currentCID === undefined || currentCID === null || currentCID.length === 0) {
    throw new ValidationError('currentCID is empty');
  }
  if (mqAll === undefined || mqAll === null || mqAll.length === 0) {
    throw new ValidationError('mqAll is null or mqAll empty');
  }
  if (cidAll === undefined || cidAll === null || cidAll.length === 0) {
    throw new ValidationError('cidAll is null or cidAll empty');
  }
  return cidAll.includes(currentCID);
}

/**
 * AVG: contiguous blocks of the sorted queues; the first `size % members` members take one more.
 * Members past the queue count get nothing. `currentCID` must be in `cidAll`.
 */
export function allocateAveragely(
  currentCID: string,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
): MessageQueue[] {
  const result: MessageQueue[] = [];
  const index = cidAll.indexOf(currentCID);
  const mod = mqAll.length % cidAll.length;
  const quotient = Math.trunc(mqAll.length / cidAll.length);
  const takesExtra = mod > 0 && index < mod;
  const averageSize = mqAll.length <= cidAll.length ? 1 : takesExtra ? quotient + 1 : quotient;
  const startIndex = takesExtra ? index * averageSize : index * averageSize + mod;
  // Negative once startIndex passes the end (more members than queues): no queue.
  const range = Math.min(averageSize, mqAll.length - startIndex);
  for (let i = 0; i < range; i++) {
    result.push(mqAll[(startIndex + i) % mqAll.length] as MessageQueue);
  }
  return result;
}

/** AVG_BY_CIRCLE: queue i goes to member i mod size, dealt like cards. `currentCID` must be in `cidAll`. */
export function allocateAveragelyByCircle(
  currentCID: string,
  mqAll: readonly MessageQueue[],
  cidAll: readonly string[],
): MessageQueue[] {
  const result: MessageQueue[] = [];
  // indexOf finds the first copy of a duplicated id, so every copy takes the same queues.
  const index = cidAll.indexOf(currentCID);
  for (let i = index; i < mqAll.length; i += cidAll.length) {
    result.push(mqAll[i] as MessageQueue);
  }
  return result;
}
