import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_TOPIC_STATS_INFO (202) request. */
export const GetTopicStatsInfoRequestHeader = defineHeader({
  name: 'GetTopicStatsInfoRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetTopicStatsInfoRequestHeader`,
  fields: {
    topic: req('string'),
  },
});

export type GetTopicStatsInfoRequestHeader = HeaderOf<typeof GetTopicStatsInfoRequestHeader>;
