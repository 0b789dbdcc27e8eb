/**
 * OperationResult (`broker/.../transaction/OperationResult.java`): the half message an
 * END_TRANSACTION names, or why it was not found.
 */
import type { MessageExt } from '../../common/message/message.js';

export interface OperationResult {
  readonly prepareMessage: MessageExt | undefined;
  readonly responseCode: number;
  readonly responseRemark: string | undefined;
}
