import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** SEARCH_OFFSET_BY_TIMESTAMP (29) request. */
export const SearchOffsetRequestHeader = defineHeader({
  name: 'SearchOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.SearchOffsetRequestHeader`,
  fields: {
    topic: req('string'),
    queueId: req('int'),
    timestamp: req('long'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type SearchOffsetRequestHeader = HeaderOf<typeof SearchOffsetRequestHeader>;
