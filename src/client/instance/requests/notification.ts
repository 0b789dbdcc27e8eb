/**
 * NOTIFICATION (200054): a long poll that only says whether a pop of the topic (queueId -1: any
 * queue) would find messages for the group.
 */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader, type HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { NotificationRequestHeader } from '../../../remoting/protocol/headers/notification-request-header.js';
import { NotificationResponseHeader } from '../../../remoting/protocol/headers/notification-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export type NotificationHeader = HeaderInputOf<typeof NotificationRequestHeader>;

export function buildNotificationRequest(header: NotificationHeader): RemotingCommand {
  return requestWithHeader(RequestCode.NOTIFICATION, NotificationRequestHeader, header);
}

/** Whether messages are waiting; MQBrokerError unless SUCCESS. */
export function parseNotificationResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string; group: string },
): boolean {
  expectSuccess(response, subject);
  return decodeHeader(NotificationResponseHeader, response.extFields).hasMsg;
}
