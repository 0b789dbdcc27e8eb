import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_MESSAGE (12) request. MixAll.UNIQUE_MSG_QUERY_FLAG travels beside it in extFields. */
export const QueryMessageRequestHeader = defineHeader({
  name: 'QueryMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.QueryMessageRequestHeader`,
  fields: {
    topic: req('string'),
    key: req('string'),
    maxNum: req('int'),
    beginTimestamp: req('long'),
    endTimestamp: req('long'),
  },
});

export type QueryMessageRequestHeader = HeaderOf<typeof QueryMessageRequestHeader>;
