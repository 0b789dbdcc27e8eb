import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_CONSUME_TIME_SPAN (303) request. */
export const QueryConsumeTimeSpanRequestHeader = defineHeader({
  name: 'QueryConsumeTimeSpanRequestHeader',
  javaClass: `${HEADER_PACKAGE}.QueryConsumeTimeSpanRequestHeader`,
  fields: {
    topic: req('string'),
    group: req('string'),
  },
});

export type QueryConsumeTimeSpanRequestHeader = HeaderOf<typeof QueryConsumeTimeSpanRequestHeader>;
