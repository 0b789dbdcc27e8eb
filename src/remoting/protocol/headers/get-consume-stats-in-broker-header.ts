import { defineHeader, type HeaderOf, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_BROKER_CONSUME_STATS (317) request. The key really is `isOrder`. */
export const GetConsumeStatsInBrokerHeader = defineHeader({
  name: 'GetConsumeStatsInBrokerHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumeStatsInBrokerHeader`,
  fields: {
    isOrder: reqPrim('boolean'),
  },
});

export type GetConsumeStatsInBrokerHeader = HeaderOf<typeof GetConsumeStatsInBrokerHeader>;
