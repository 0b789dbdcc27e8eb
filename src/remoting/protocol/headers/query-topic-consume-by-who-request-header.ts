import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_TOPIC_CONSUME_BY_WHO (300) request. */
export const QueryTopicConsumeByWhoRequestHeader = defineHeader({
  name: 'QueryTopicConsumeByWhoRequestHeader',
  javaClass: `${HEADER_PACKAGE}.QueryTopicConsumeByWhoRequestHeader`,
  fields: {
    topic: req('string'),
  },
});

export type QueryTopicConsumeByWhoRequestHeader = HeaderOf<typeof QueryTopicConsumeByWhoRequestHeader>;
