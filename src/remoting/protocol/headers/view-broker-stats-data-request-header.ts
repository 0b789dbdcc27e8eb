import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** VIEW_BROKER_STATS_DATA (315) request. */
export const ViewBrokerStatsDataRequestHeader = defineHeader({
  name: 'ViewBrokerStatsDataRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ViewBrokerStatsDataRequestHeader`,
  fields: {
    statsName: req('string'),
    statsKey: req('string'),
  },
});

export type ViewBrokerStatsDataRequestHeader = HeaderOf<typeof ViewBrokerStatsDataRequestHeader>;
