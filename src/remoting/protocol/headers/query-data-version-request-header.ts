import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** QUERY_DATA_VERSION (322) request. */
export const QueryDataVersionRequestHeader = defineHeader({
  name: 'QueryDataVersionRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.QueryDataVersionRequestHeader`,
  fields: {
    brokerName: req('string'),
    brokerAddr: req('string'),
    clusterName: req('string'),
    brokerId: req('long'),
  },
});

export type QueryDataVersionRequestHeader = HeaderOf<typeof QueryDataVersionRequestHeader>;
