/** What a send answers (upstream's SendResult and SendStatus): the public type of every send. */
import type { MessageQueue } from '../../common/message/message-queue.js';

/** Upstream `SendStatus`: every status but SEND_OK means stored, with a durability warning. */
export const SendStatus = {
  SEND_OK: 'SEND_OK',
  FLUSH_DISK_TIMEOUT: 'FLUSH_DISK_TIMEOUT',
  FLUSH_SLAVE_TIMEOUT: 'FLUSH_SLAVE_TIMEOUT',
  SLAVE_NOT_AVAILABLE: 'SLAVE_NOT_AVAILABLE',
} as const;
export type SendStatus = (typeof SendStatus)[keyof typeof SendStatus];

export interface SendResult {
  readonly sendStatus: SendStatus;
  /** The client-made id (UNIQ_KEY) consumers see as msgId; comma-joined for a batch. */
  readonly msgId: string;
  /** The broker's id: store host + commit log offset (comma-joined for a batch). */
  readonly offsetMsgId: string;
  readonly messageQueue: MessageQueue;
  readonly queueOffset: bigint;
  readonly transactionId: string | undefined;
  /** MSG_REGION of the broker, `DefaultRegion` when it sends none. */
  readonly regionId: string;
  /** TRACE_ON of the broker: false only when it says `false`. */
  readonly traceOn: boolean;
}
