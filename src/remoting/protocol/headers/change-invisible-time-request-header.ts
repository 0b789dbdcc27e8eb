import { defineHeader, type HeaderOf, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053) request, 5.5.0's ChangeInvisibleTimeRequestHeader.
 * `extraInfo` is the receipt handle, `offset` the message's queue offset, `invisibleTime` the new
 * hold in ms counted from now. 5.5.0 adds `liteTopic` and the primitive `suspend` (always written,
 * `false` unless set; lite-topic suspension, not served here).
 */
export const ChangeInvisibleTimeRequestHeader = defineHeader({
  name: 'ChangeInvisibleTimeRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.ChangeInvisibleTimeRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: req('int'),
    extraInfo: req('string'),
    offset: req('long'),
    invisibleTime: req('long'),
    liteTopic: opt('string'),
    suspend: prim('boolean'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type ChangeInvisibleTimeRequestHeader = HeaderOf<typeof ChangeInvisibleTimeRequestHeader>;
