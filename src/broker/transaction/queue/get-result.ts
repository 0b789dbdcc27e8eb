/**
 * What the transaction service reads from the half and op queues: the client's PullResult and
 * PullStatus (upstream reuses them; `msgFoundList` is undefined where Java's is null) and GetResult
 * (`broker/.../transaction/queue/GetResult.java`), one half message with the pull that found it.
 */
import type { MessageExt } from '../../../common/message/message.js';

export const PullStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  NO_MATCHED_MSG: 'NO_MATCHED_MSG',
  OFFSET_ILLEGAL: 'OFFSET_ILLEGAL',
} as const;
export type PullStatus = (typeof PullStatus)[keyof typeof PullStatus];

export interface PullResult {
  readonly pullStatus: PullStatus;
  readonly nextBeginOffset: bigint;
  readonly minOffset: bigint;
  readonly maxOffset: bigint;
  readonly msgFoundList: MessageExt[] | undefined;
}

export interface GetResult {
  readonly msg: MessageExt | undefined;
  readonly pullResult: PullResult | undefined;
}
