/**
 * The POP family of 5.x headers (not in `headerSchemas`, whose golden fixtures come from 4.9.8),
 * and which header each POP request code carries.
 */
import type { AnyHeaderSchema } from '../header-schema.js';
import { RequestCode } from '../request-code.js';
import { AckMessageRequestHeader } from './ack-message-request-header.js';
import { ChangeInvisibleTimeRequestHeader } from './change-invisible-time-request-header.js';
import { ChangeInvisibleTimeResponseHeader } from './change-invisible-time-response-header.js';
import { NotificationRequestHeader } from './notification-request-header.js';
import { NotificationResponseHeader } from './notification-response-header.js';
import { PeekMessageRequestHeader } from './peek-message-request-header.js';
import { PollingInfoRequestHeader } from './polling-info-request-header.js';
import { PollingInfoResponseHeader } from './polling-info-response-header.js';
import { PopMessageRequestHeader } from './pop-message-request-header.js';
import { PopMessageResponseHeader } from './pop-message-response-header.js';

export { AckMessageRequestHeader } from './ack-message-request-header.js';
export { ChangeInvisibleTimeRequestHeader } from './change-invisible-time-request-header.js';
export { ChangeInvisibleTimeResponseHeader } from './change-invisible-time-response-header.js';
export { NotificationRequestHeader } from './notification-request-header.js';
export { NotificationResponseHeader } from './notification-response-header.js';
export { PeekMessageRequestHeader } from './peek-message-request-header.js';
export { PollingInfoRequestHeader } from './polling-info-request-header.js';
export { PollingInfoResponseHeader } from './polling-info-response-header.js';
export {
  isPopTimeoutTooMuch,
  POP_TIMEOUT_SLACK_MS,
  PopMessageRequestHeader,
} from './pop-message-request-header.js';
export { PopMessageResponseHeader } from './pop-message-response-header.js';

/** Every POP header schema by Java simple class name. */
export const popHeaderSchemas = {
  AckMessageRequestHeader,
  ChangeInvisibleTimeRequestHeader,
  ChangeInvisibleTimeResponseHeader,
  NotificationRequestHeader,
  NotificationResponseHeader,
  PeekMessageRequestHeader,
  PollingInfoRequestHeader,
  PollingInfoResponseHeader,
  PopMessageRequestHeader,
  PopMessageResponseHeader,
} as const satisfies Readonly<Record<string, AnyHeaderSchema>>;

/** Request header per POP request code (BATCH_ACK_MESSAGE has none: its body carries the acks). */
export const popRequestHeaderByCode: ReadonlyMap<number, AnyHeaderSchema> = new Map<number, AnyHeaderSchema>([
  [RequestCode.POP_MESSAGE, PopMessageRequestHeader],
  [RequestCode.ACK_MESSAGE, AckMessageRequestHeader],
  [RequestCode.PEEK_MESSAGE, PeekMessageRequestHeader],
  [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, ChangeInvisibleTimeRequestHeader],
  [RequestCode.NOTIFICATION, NotificationRequestHeader],
  [RequestCode.POLLING_INFO, PollingInfoRequestHeader],
]);

/** Response header per POP request code, where it has one. */
export const popResponseHeaderByCode: ReadonlyMap<number, AnyHeaderSchema> = new Map<number, AnyHeaderSchema>(
  [
    [RequestCode.POP_MESSAGE, PopMessageResponseHeader],
    [RequestCode.PEEK_MESSAGE, PopMessageResponseHeader],
    [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, ChangeInvisibleTimeResponseHeader],
    [RequestCode.NOTIFICATION, NotificationResponseHeader],
    [RequestCode.POLLING_INFO, PollingInfoResponseHeader],
  ],
);
