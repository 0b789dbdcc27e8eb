import { defineHeader, type HeaderOf, req, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/** PEEK_MESSAGE (200052) request, 5.5.0's PeekMessageRequestHeader (Java field order: topic first). */
export const PeekMessageRequestHeader = defineHeader({
  name: 'PeekMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.PeekMessageRequestHeader`,
  fields: {
    topic: req('string'),
    queueId: reqPrim('int'),
    maxMsgNums: reqPrim('int'),
    consumerGroup: req('string'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type PeekMessageRequestHeader = HeaderOf<typeof PeekMessageRequestHeader>;
