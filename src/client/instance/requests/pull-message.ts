/**
 * PULL_MESSAGE (11): messages of one queue from an offset, long-polled by the broker. The answer's
 * code gives the status (FOUND, PULL_NOT_FOUND, PULL_RETRY_IMMEDIATELY, PULL_OFFSET_MOVED), its
 * header the next offset, the queue's bounds and which broker (master or slave) to pull from next.
 */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader, type HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { PullMessageRequestHeader } from '../../../remoting/protocol/headers/pull-message-request-header.js';
import { PullMessageResponseHeader } from '../../../remoting/protocol/headers/pull-message-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { PullStatus } from '../../consumer/pull/pull-result.js';
import { MQBrokerError } from '../../errors.js';
import { requestWithHeader } from './support.js';

export type PullMessageHeader = HeaderInputOf<typeof PullMessageRequestHeader>;

/** The answer before its messages are decoded (PullResultExt). */
export interface RawPullResult {
  readonly pullStatus: PullStatus;
  readonly nextBeginOffset: bigint;
  readonly minOffset: bigint;
  readonly maxOffset: bigint;
  readonly suggestWhichBrokerId: bigint;
  /** Stored records back to back (FOUND). */
  readonly messageBinary: Buffer | undefined;
}

export function buildPullMessageRequest(header: PullMessageHeader, litePull = false): RemotingCommand {
  return requestWithHeader(
    litePull ? RequestCode.LITE_PULL_MESSAGE : RequestCode.PULL_MESSAGE,
    PullMessageRequestHeader,
    header,
  );
}

function statusOf(code: number): PullStatus | undefined {
  switch (code) {
    case ResponseCode.SUCCESS:
      return PullStatus.FOUND;
    case ResponseCode.PULL_NOT_FOUND:
      return PullStatus.NO_NEW_MSG;
    case ResponseCode.PULL_RETRY_IMMEDIATELY:
      return PullStatus.NO_MATCHED_MSG;
    case ResponseCode.PULL_OFFSET_MOVED:
      return PullStatus.OFFSET_ILLEGAL;
    default:
      return undefined;
  }
}

/** `processPullResponse`: the four pull codes, MQBrokerError for any other answer. */
export function parsePullMessageResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string; group: string },
): RawPullResult {
  const pullStatus = statusOf(response.code);
  if (pullStatus === undefined) throw new MQBrokerError(response.code, response.remark, subject);
  const header = decodeHeader(PullMessageResponseHeader, response.extFields);
  return {
    pullStatus,
    nextBeginOffset: header.nextBeginOffset,
    minOffset: header.minOffset,
    maxOffset: header.maxOffset,
    suggestWhichBrokerId: header.suggestWhichBrokerId,
    messageBinary: response.body,
  };
}
