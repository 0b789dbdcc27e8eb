/** HEART_BEAT (34): the client's groups and subscriptions, to every broker it knows. */
import { parseJavaBoolean } from '../../../common/java-parse.js';
import { encodeHeartbeatData, type HeartbeatData } from '../../../common/protocol/heartbeat-data.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess } from './support.js';

/** Response extFields of a 5.x broker (MixAll.IS_SUPPORT_HEART_BEAT_V2, MixAll.IS_SUB_CHANGE). */
export const IS_SUPPORT_HEART_BEAT_V2 = 'IS_SUPPORT_HEART_BEAT_V2';
export const IS_SUB_CHANGE = 'IS_SUB_CHANGE';

export interface HeartbeatAnswer {
  /** The broker's MQVersion ordinal, from the answer's `version` (clients gate SQL92 pulls on it). */
  version: number;
  /** The broker takes heartbeats without subscriptions (5.x). */
  supportV2: boolean;
  /** A 5.x broker asks for the full heartbeat (its copy of the subscriptions is stale). */
  subChange: boolean;
}

export function buildHeartbeatRequest(data: HeartbeatData): RemotingCommand {
  return createRequest(RequestCode.HEART_BEAT, { body: encodeHeartbeatData(data) });
}

export function parseHeartbeatResponse(response: RemotingCommand, brokerAddr: string): HeartbeatAnswer {
  expectSuccess(response, { brokerAddr });
  const ext = response.extFields;
  return {
    version: response.version,
    supportV2: parseJavaBoolean(ext?.[IS_SUPPORT_HEART_BEAT_V2]),
    subChange: parseJavaBoolean(ext?.[IS_SUB_CHANGE]),
  };
}
