import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_CONSUMER_OFFSET (14) response (absent with QUERY_NOT_FOUND). */
export const QueryConsumerOffsetResponseHeader = defineHeader({
  name: 'QueryConsumerOffsetResponseHeader',
  javaClass: `${HEADER_PACKAGE}.QueryConsumerOffsetResponseHeader`,
  fields: {
    offset: req('long'),
  },
});

export type QueryConsumerOffsetResponseHeader = HeaderOf<typeof QueryConsumerOffsetResponseHeader>;
