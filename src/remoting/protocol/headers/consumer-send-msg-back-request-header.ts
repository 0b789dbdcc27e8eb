import { defineHeader, type HeaderOf, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/**
 * CONSUMER_SEND_MSG_BACK (36) request. delayLevel 0 lets the broker choose, < 0 goes straight to the
 * DLQ.
 */
export const ConsumerSendMsgBackRequestHeader = defineHeader({
  name: 'ConsumerSendMsgBackRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ConsumerSendMsgBackRequestHeader`,
  fields: {
    offset: req('long'),
    group: req('string'),
    delayLevel: req('int'),
    originMsgId: opt('string'),
    originTopic: opt('string'),
    unitMode: prim('boolean'),
    maxReconsumeTimes: opt('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type ConsumerSendMsgBackRequestHeader = HeaderOf<typeof ConsumerSendMsgBackRequestHeader>;
