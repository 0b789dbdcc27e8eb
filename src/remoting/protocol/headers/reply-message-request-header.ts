import { defineHeader, type HeaderOf, opt, prim, req, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker to client) request. */
export const ReplyMessageRequestHeader = defineHeader({
  name: 'ReplyMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ReplyMessageRequestHeader`,
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
    bornHost: req('string'),
    storeHost: req('string'),
    storeTimestamp: reqPrim('long'),
  },
});

export type ReplyMessageRequestHeader = HeaderOf<typeof ReplyMessageRequestHeader>;
