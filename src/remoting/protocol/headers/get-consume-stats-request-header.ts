import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_CONSUME_STATS (208) request. */
export const GetConsumeStatsRequestHeader = defineHeader({
  name: 'GetConsumeStatsRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumeStatsRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: opt('string'),
  },
});

export type GetConsumeStatsRequestHeader = HeaderOf<typeof GetConsumeStatsRequestHeader>;
