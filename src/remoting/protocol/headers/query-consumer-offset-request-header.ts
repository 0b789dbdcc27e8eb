import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** QUERY_CONSUMER_OFFSET (14) request. */
export const QueryConsumerOffsetRequestHeader = defineHeader({
  name: 'QueryConsumerOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.QueryConsumerOffsetRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: req('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type QueryConsumerOffsetRequestHeader = HeaderOf<typeof QueryConsumerOffsetRequestHeader>;
