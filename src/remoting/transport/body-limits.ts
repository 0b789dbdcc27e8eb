/**
 * Per-request-code body limits of a server. A frame may be as large as the frame limit (16 MiB), but
 * a control request's body is JSON that a processor decodes and acts on synchronously: a 16 MiB lock
 * or heartbeat body stalls the event loop for seconds (measured: ~2 s for LOCK_BATCH_MQ, ~0.6 s for
 * HEART_BEAT). So every request body is held to `requestBodyMaxSize` unless its code has an entry in
 * `requestBodyMaxSizeByCode`; the codes that carry messages keep the frame limit. Upstream has no
 * such limit (only the frame limit); these are our settings.
 *
 * A breach is refused before the body is looked at (from the header alone when the frame spans
 * reads, the rest dropped unbuffered: see FrameSplitter's inspector), with MESSAGE_ILLEGAL:
 * upstream's code for a body over its size limit (a message body over maxMessageSize), which no
 * client retries, unlike SYSTEM_ERROR; REQUEST_CODE_NOT_SUPPORTED would tell the peer the broker
 * lacks the feature.
 */
import { RequestCode } from '../protocol/request-code.js';

/** Limit of a request body whose code has no entry of its own [1 MiB]. */
export const DEFAULT_REQUEST_BODY_MAX_SIZE = 1024 * 1024;

/** No limit of its own: the frame limit (maxFrameSize) alone bounds the body. */
const FRAME_LIMIT_ONLY = Number.POSITIVE_INFINITY;

/**
 * Codes whose bodies are messages (or, for REGISTER_BROKER, every topic of a broker): bounded by the
 * frame limit alone, as upstream bounds them. The other codes take the default.
 */
export const DEFAULT_REQUEST_BODY_MAX_SIZE_BY_CODE: Readonly<Record<number, number>> = Object.freeze({
  [RequestCode.SEND_MESSAGE]: FRAME_LIMIT_ONLY,
  [RequestCode.SEND_MESSAGE_V2]: FRAME_LIMIT_ONLY,
  [RequestCode.SEND_BATCH_MESSAGE]: FRAME_LIMIT_ONLY,
  [RequestCode.CONSUMER_SEND_MSG_BACK]: FRAME_LIMIT_ONLY,
  [RequestCode.SEND_REPLY_MESSAGE]: FRAME_LIMIT_ONLY,
  [RequestCode.SEND_REPLY_MESSAGE_V2]: FRAME_LIMIT_ONLY,
  [RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT]: FRAME_LIMIT_ONLY,
  [RequestCode.CONSUME_MESSAGE_DIRECTLY]: FRAME_LIMIT_ONLY,
  [RequestCode.REGISTER_BROKER]: FRAME_LIMIT_ONLY,
});

export interface RequestBodyLimitSettings {
  readonly requestBodyMaxSize: number;
  readonly requestBodyMaxSizeByCode: Readonly<Record<number, number>>;
}

/** The largest body a request of `code` may carry under `settings`. */
export function requestBodyLimit(settings: RequestBodyLimitSettings, code: number): number {
  return settings.requestBodyMaxSizeByCode[code] ?? settings.requestBodyMaxSize;
}

/** The remark of a refusal: names the code, the size and the limit. */
export function bodyOverLimitRemark(code: number, size: number, limit: number): string {
  return `request code ${code}: body of ${size} bytes exceeds the limit of ${limit} bytes for this code`;
}
