import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** SEARCH_OFFSET_BY_TIMESTAMP (29) response. */
export const SearchOffsetResponseHeader = defineHeader({
  name: 'SearchOffsetResponseHeader',
  javaClass: `${HEADER_PACKAGE}.SearchOffsetResponseHeader`,
  fields: {
    offset: req('long'),
  },
});

export type SearchOffsetResponseHeader = HeaderOf<typeof SearchOffsetResponseHeader>;
