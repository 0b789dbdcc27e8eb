import { defineHeader, type HeaderOf, opt, req, reqPrim, withDefault } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/**
 * POP_MESSAGE (200050) request, 5.5.0's PopMessageRequestHeader (extends TopicQueueRequestHeader).
 * `queueId` -1 means every readable queue of the topic on this broker (Java's getter maps any
 * negative id to -1); `initMode` 0 = MIN, 1 = MAX (ConsumeInitMode); `order` marks a FIFO pop,
 * `attemptId` makes a retried FIFO pop idempotent; `expType`/`exp` are the filter (TAG or SQL92).
 */
export const PopMessageRequestHeader = defineHeader({
  name: 'PopMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.PopMessageRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: reqPrim('int'),
    maxMsgNums: reqPrim('int'),
    invisibleTime: reqPrim('long'),
    pollTime: reqPrim('long'),
    bornTime: reqPrim('long'),
    initMode: reqPrim('int'),
    expType: opt('string'),
    exp: opt('string'),
    order: withDefault('boolean', false, false),
    attemptId: opt('string'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type PopMessageRequestHeader = HeaderOf<typeof PopMessageRequestHeader>;

/** Upstream's slack for `isTimeoutTooMuch` (PopMessageRequestHeader): now - bornTime - pollTime > 500 ms. */
export const POP_TIMEOUT_SLACK_MS = 500;

/**
 * Upstream's `isTimeoutTooMuch`: the request was born so long ago (client clock behind the broker's,
 * or a request stuck in transit) that its long poll has already expired. The broker answers such a
 * request with POLLING_TIMEOUT.
 */
export function isPopTimeoutTooMuch(h: { bornTime: bigint; pollTime: bigint }, nowMs: number): boolean {
  return BigInt(nowMs) - h.bornTime - h.pollTime > BigInt(POP_TIMEOUT_SLACK_MS);
}
