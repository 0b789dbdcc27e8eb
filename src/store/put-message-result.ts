/** Outcome of an append (upstream `PutMessageStatus`, `AppendMessageStatus`, `*Result`, 4.9.8). */

import type { HostAddress } from '../common/message/host.js';
import { createOffsetMsgId, createOffsetMsgIds } from '../common/message/message-id.js';

export const PutMessageStatus = {
  PUT_OK: 'PUT_OK',
  FLUSH_DISK_TIMEOUT: 'FLUSH_DISK_TIMEOUT',
  FLUSH_SLAVE_TIMEOUT: 'FLUSH_SLAVE_TIMEOUT',
  SLAVE_NOT_AVAILABLE: 'SLAVE_NOT_AVAILABLE',
  SERVICE_NOT_AVAILABLE: 'SERVICE_NOT_AVAILABLE',
  CREATE_MAPEDFILE_FAILED: 'CREATE_MAPEDFILE_FAILED',
  MESSAGE_ILLEGAL: 'MESSAGE_ILLEGAL',
  PROPERTIES_SIZE_EXCEEDED: 'PROPERTIES_SIZE_EXCEEDED',
  OS_PAGECACHE_BUSY: 'OS_PAGECACHE_BUSY',
  UNKNOWN_ERROR: 'UNKNOWN_ERROR',
  LMQ_CONSUME_QUEUE_NUM_EXCEEDED: 'LMQ_CONSUME_QUEUE_NUM_EXCEEDED',
  // 5.x: refusals of the timer-message transform (HookUtils.handleScheduleMessage).
  WHEEL_TIMER_FLOW_CONTROL: 'WHEEL_TIMER_FLOW_CONTROL',
  WHEEL_TIMER_MSG_ILLEGAL: 'WHEEL_TIMER_MSG_ILLEGAL',
  WHEEL_TIMER_NOT_ENABLE: 'WHEEL_TIMER_NOT_ENABLE',
} as const;
export type PutMessageStatus = (typeof PutMessageStatus)[keyof typeof PutMessageStatus];

export const AppendMessageStatus = {
  PUT_OK: 'PUT_OK',
  END_OF_FILE: 'END_OF_FILE',
  MESSAGE_SIZE_EXCEEDED: 'MESSAGE_SIZE_EXCEEDED',
  PROPERTIES_SIZE_EXCEEDED: 'PROPERTIES_SIZE_EXCEEDED',
  UNKNOWN_ERROR: 'UNKNOWN_ERROR',
} as const;
export type AppendMessageStatus = (typeof AppendMessageStatus)[keyof typeof AppendMessageStatus];

/**
 * Where and when a message (or a batch: `msgNum` records from `wroteOffset`) was written. `msgId` is the
 * offsetMsgId (store host + physical offset), built on first use; for a batch, the ids of all its
 * records joined with `,` as the broker's send response carries them.
 */
export class AppendMessageResult {
  status: AppendMessageStatus;
  readonly wroteOffset: bigint;
  readonly wroteBytes: number;
  readonly storeTimestamp: bigint;
  /** Queue offset of the (first) message. */
  readonly logicsOffset: bigint;
  readonly msgNum: number;
  private readonly storeHost: HostAddress | undefined;
  /** Physical offsets of a batch's records (single messages: undefined, wroteOffset is the one). */
  private readonly batchOffsets: readonly number[] | undefined;
  private id: string | undefined;

  constructor(
    status: AppendMessageStatus,
    wroteOffset = 0n,
    wroteBytes = 0,
    storeTimestamp = 0n,
    logicsOffset = 0n,
    msgNum = 1,
    storeHost?: HostAddress,
    batchOffsets?: readonly number[],
  ) {
    this.status = status;
    this.wroteOffset = wroteOffset;
    this.wroteBytes = wroteBytes;
    this.storeTimestamp = storeTimestamp;
    this.logicsOffset = logicsOffset;
    this.msgNum = msgNum;
    this.storeHost = storeHost;
    this.batchOffsets = batchOffsets;
  }

  get msgId(): string {
    if (this.id !== undefined) return this.id;
    const host = this.storeHost;
    if (host === undefined || this.status !== AppendMessageStatus.PUT_OK) {
      this.id = '';
    } else if (this.batchOffsets === undefined) {
      this.id = createOffsetMsgId(host, this.wroteOffset);
    } else {
      this.id = createOffsetMsgIds(host, this.batchOffsets);
    }
    return this.id;
  }

  isOk(): boolean {
    return this.status === AppendMessageStatus.PUT_OK;
  }
}

export class PutMessageResult {
  putMessageStatus: PutMessageStatus;
  readonly appendMessageResult: AppendMessageResult | undefined;

  constructor(putMessageStatus: PutMessageStatus, appendMessageResult?: AppendMessageResult) {
    this.putMessageStatus = putMessageStatus;
    this.appendMessageResult = appendMessageResult;
  }

  /** As upstream: the bytes were appended (a FLUSH_DISK_TIMEOUT result is still "ok"). */
  isOk(): boolean {
    return this.appendMessageResult?.isOk() === true;
  }
}
