import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/**
 * ACK_MESSAGE (200051) request, 5.5.0's AckMessageRequestHeader. `extraInfo` is the receipt handle
 * (src/common/pop/extra-info.ts), `offset` the message's queue offset. `liteTopic` is 5.5.0's (lite
 * topics, not served here; decoders ignore it).
 */
export const AckMessageRequestHeader = defineHeader({
  name: 'AckMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.AckMessageRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: req('int'),
    extraInfo: req('string'),
    offset: req('long'),
    liteTopic: opt('string'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type AckMessageRequestHeader = HeaderOf<typeof AckMessageRequestHeader>;
