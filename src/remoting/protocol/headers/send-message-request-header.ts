import { defineHeader, type HeaderOf, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/**
 * SEND_MESSAGE (10) and SEND_REPLY_MESSAGE (324) request. Java clients send the V2 form unless
 * `sendSmartMsg` is off; the broker turns V2 into this.
 */
export const SendMessageRequestHeader = defineHeader({
  name: 'SendMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.SendMessageRequestHeader`,
  fields: {
    producerGroup: req('string'),
    topic: req('string'),
    defaultTopic: req('string'),
    defaultTopicQueueNums: req('int'),
    queueId: req('int'),
    sysFlag: req('int'),
    bornTimestamp: req('long'),
    flag: req('int'),
    properties: opt('string'),
    reconsumeTimes: opt('int'),
    unitMode: prim('boolean'),
    batch: prim('boolean'),
    maxReconsumeTimes: opt('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type SendMessageRequestHeader = HeaderOf<typeof SendMessageRequestHeader>;
