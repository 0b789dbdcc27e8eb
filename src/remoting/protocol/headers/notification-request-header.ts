import { defineHeader, type HeaderOf, opt, req, reqPrim, withDefault } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/**
 * NOTIFICATION (200054) request, 5.5.0's NotificationRequestHeader: a long poll that only says
 * whether a pop would find messages. `queueId` -1 = every readable queue. 5.5.0 adds the filter
 * (`expType`/`exp`).
 */
export const NotificationRequestHeader = defineHeader({
  name: 'NotificationRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.NotificationRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: reqPrim('int'),
    pollTime: reqPrim('long'),
    bornTime: reqPrim('long'),
    order: withDefault('boolean', false, false),
    attemptId: opt('string'),
    expType: opt('string'),
    exp: opt('string'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type NotificationRequestHeader = HeaderOf<typeof NotificationRequestHeader>;
