/** The answer of a pull (upstream PullResult / PullStatus), as the pull consumers return it. */
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
  /** Where the next pull of this queue starts. */
  readonly nextBeginOffset: bigint;
  readonly minOffset: bigint;
  readonly maxOffset: bigint;
  /** The messages (FOUND), after the client-side tag re-check; empty otherwise. */
  readonly msgFoundList: MessageExt[];
}
