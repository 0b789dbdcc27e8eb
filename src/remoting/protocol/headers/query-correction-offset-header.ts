import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** QUERY_CORRECTION_OFFSET (308) request. */
export const QueryCorrectionOffsetHeader = defineHeader({
  name: 'QueryCorrectionOffsetHeader',
  javaClass: `${HEADER_PACKAGE}.QueryCorrectionOffsetHeader`,
  fields: {
    filterGroups: opt('string'),
    compareGroup: req('string'),
    topic: req('string'),
  },
});

export type QueryCorrectionOffsetHeader = HeaderOf<typeof QueryCorrectionOffsetHeader>;
