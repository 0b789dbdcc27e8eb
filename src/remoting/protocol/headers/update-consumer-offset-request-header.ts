import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** UPDATE_CONSUMER_OFFSET (15) request; the offset is the next one to consume. */
export const UpdateConsumerOffsetRequestHeader = defineHeader({
  name: 'UpdateConsumerOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.UpdateConsumerOffsetRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: req('int'),
    commitOffset: req('long'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type UpdateConsumerOffsetRequestHeader = HeaderOf<typeof UpdateConsumerOffsetRequestHeader>;
