/**
 * SendMessageHook (upstream's): code that runs around every send attempt, with upstream's context
 * fields. A hook that throws is logged and skipped; it never fails a send.
 */
import type { Message } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { CommunicationMode } from '../diagnostics.js';
import type { SendResult } from '../instance/requests/send-message.js';

/** Upstream MessageType, as the hooks see it. */
export const MessageType = {
  Normal_Msg: 'Normal_Msg',
  Trans_Msg_Half: 'Trans_Msg_Half',
  Trans_msg_Commit: 'Trans_msg_Commit',
  Delay_Msg: 'Delay_Msg',
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

export interface SendMessageContext {
  readonly producerGroup: string;
  readonly message: Message;
  readonly mq: MessageQueue;
  readonly brokerAddr: string;
  readonly bornHost: string;
  readonly communicationMode: CommunicationMode;
  readonly msgType: MessageType;
  readonly namespace: string | undefined;
  /** Set before sendMessageAfter when the attempt succeeded. */
  sendResult?: SendResult | undefined;
  /** Set before sendMessageAfter when the attempt failed. */
  exception?: unknown;
  /** Free for hooks to pass data from before to after. */
  props: Map<string, string>;
}

export interface SendMessageHook {
  hookName(): string;
  sendMessageBefore(context: SendMessageContext): void;
  sendMessageAfter(context: SendMessageContext): void;
}
