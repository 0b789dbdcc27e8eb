import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_MESSAGE (12) response. */
export const QueryMessageResponseHeader = defineHeader({
  name: 'QueryMessageResponseHeader',
  javaClass: `${HEADER_PACKAGE}.QueryMessageResponseHeader`,
  fields: {
    indexLastUpdateTimestamp: req('long'),
    indexLastUpdatePhyoffset: req('long'),
  },
});

export type QueryMessageResponseHeader = HeaderOf<typeof QueryMessageResponseHeader>;
