import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** QUERY_DATA_VERSION (322) response. */
export const QueryDataVersionResponseHeader = defineHeader({
  name: 'QueryDataVersionResponseHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.QueryDataVersionResponseHeader`,
  fields: {
    changed: req('boolean'),
  },
});

export type QueryDataVersionResponseHeader = HeaderOf<typeof QueryDataVersionResponseHeader>;
