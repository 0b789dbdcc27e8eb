/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053): a popped message becomes visible again `invisibleTime` ms
 * from now (a consumer that failed it asks for it back later). The answer gives the message a new
 * receipt handle (upstream MQClientAPIImpl.changeInvisibleTimeAsync).
 */
import { buildExtraInfo } from '../../../common/pop/extra-info.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader, type HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { ChangeInvisibleTimeRequestHeader } from '../../../remoting/protocol/headers/change-invisible-time-request-header.js';
import { ChangeInvisibleTimeResponseHeader } from '../../../remoting/protocol/headers/change-invisible-time-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import type { AckStatus } from './ack-message.js';
import { requestWithHeader } from './support.js';

export type ChangeInvisibleTimeHeader = HeaderInputOf<typeof ChangeInvisibleTimeRequestHeader>;

export interface ChangeInvisibleTimeResult {
  status: AckStatus;
  /** The message's new receipt handle (OK only). */
  extraInfo?: string | undefined;
  popTime?: bigint | undefined;
}

export function buildChangeInvisibleTimeRequest(header: ChangeInvisibleTimeHeader): RemotingCommand {
  return requestWithHeader(
    RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
    ChangeInvisibleTimeRequestHeader,
    header,
  );
}

export function parseChangeInvisibleTimeResponse(
  response: RemotingCommand,
  request: { topic: string; queueId: number; offset: bigint },
  brokerName: string,
): ChangeInvisibleTimeResult {
  if (response.code !== ResponseCode.SUCCESS) return { status: 'NO_EXIST' };
  const h = decodeHeader(ChangeInvisibleTimeResponseHeader, response.extFields);
  return {
    status: 'OK',
    popTime: h.popTime,
    extraInfo: buildExtraInfo(
      request.offset,
      h.popTime,
      h.invisibleTime,
      h.reviveQid,
      request.topic,
      brokerName,
      request.queueId,
      request.offset,
    ),
  };
}
