/**
 * POP_MESSAGE (200050): messages of one queue (or, with queueId -1, of every queue of the topic on
 * the broker) held invisible to the other members for `invisibleTime`; the broker long-polls for
 * `pollTime`. The answer's code gives the status (upstream MQClientAPIImpl.processPopResponse), its
 * header what the receipt handles are built from (see consumer/pop/pop-result.ts).
 */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader, type HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { PopMessageRequestHeader } from '../../../remoting/protocol/headers/pop-message-request-header.js';
import { PopMessageResponseHeader } from '../../../remoting/protocol/headers/pop-message-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode, ResponseCode5xReused } from '../../../remoting/protocol/response-code.js';
import { MQBrokerError } from '../../errors.js';
import { requestWithHeader } from './support.js';

export type PopMessageHeader = HeaderInputOf<typeof PopMessageRequestHeader>;

/** Upstream PopStatus. */
export const PopStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  POLLING_FULL: 'POLLING_FULL',
  POLLING_NOT_FOUND: 'POLLING_NOT_FOUND',
} as const;
export type PopStatus = (typeof PopStatus)[keyof typeof PopStatus];

/** The answer before its messages are decoded. */
export interface RawPopResult {
  readonly popStatus: PopStatus;
  readonly restNum: bigint;
  readonly popTime: bigint;
  readonly invisibleTime: bigint;
  readonly reviveQid: number;
  readonly startOffsetInfo: string | undefined;
  readonly msgOffsetInfo: string | undefined;
  readonly orderCountInfo: string | undefined;
  /** Stored records back to back (FOUND). */
  readonly messageBinary: Buffer | undefined;
}

export function buildPopMessageRequest(header: PopMessageHeader): RemotingCommand {
  return requestWithHeader(RequestCode.POP_MESSAGE, PopMessageRequestHeader, header);
}

function statusOf(code: number): PopStatus | undefined {
  switch (code) {
    case ResponseCode.SUCCESS:
      return PopStatus.FOUND;
    case ResponseCode5xReused.POLLING_FULL:
      return PopStatus.POLLING_FULL;
    case ResponseCode5xReused.POLLING_TIMEOUT:
    case ResponseCode.PULL_NOT_FOUND:
      return PopStatus.POLLING_NOT_FOUND;
    default:
      return undefined;
  }
}

/** The four POP codes; MQBrokerError for any other answer. */
export function parsePopMessageResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string; group: string },
): RawPopResult {
  const popStatus = statusOf(response.code);
  if (popStatus === undefined) throw new MQBrokerError(response.code, response.remark, subject);
  if (popStatus !== PopStatus.FOUND) {
    // Only a FOUND answer's header matters (restNum aside, which brokers may leave out otherwise).
    const rest = response.extFields?.restNum;
    return {
      popStatus,
      restNum: rest !== undefined && /^-?\d+$/.test(rest) ? BigInt(rest) : 0n,
      popTime: 0n,
      invisibleTime: 0n,
      reviveQid: 0,
      startOffsetInfo: undefined,
      msgOffsetInfo: undefined,
      orderCountInfo: undefined,
      messageBinary: undefined,
    };
  }
  const h = decodeHeader(PopMessageResponseHeader, response.extFields);
  return {
    popStatus,
    restNum: h.restNum,
    popTime: h.popTime,
    invisibleTime: h.invisibleTime,
    reviveQid: h.reviveQid,
    startOffsetInfo: h.startOffsetInfo,
    msgOffsetInfo: h.msgOffsetInfo,
    orderCountInfo: h.orderCountInfo,
    messageBinary: response.body,
  };
}
