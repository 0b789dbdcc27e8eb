import { defineHeader, type HeaderOf, opt, prim } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_CONSUME_QUEUE (321) request. Upstream declares no field @CFNotNull. */
export const QueryConsumeQueueRequestHeader = defineHeader({
  name: 'QueryConsumeQueueRequestHeader',
  javaClass: `${HEADER_PACKAGE}.QueryConsumeQueueRequestHeader`,
  fields: {
    topic: opt('string'),
    queueId: prim('int'),
    index: prim('long'),
    count: prim('int'),
    consumerGroup: opt('string'),
  },
});

export type QueryConsumeQueueRequestHeader = HeaderOf<typeof QueryConsumeQueueRequestHeader>;
