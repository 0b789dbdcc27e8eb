import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_CONSUMER_CONNECTION_LIST (203) request. */
export const GetConsumerConnectionListRequestHeader = defineHeader({
  name: 'GetConsumerConnectionListRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumerConnectionListRequestHeader`,
  fields: {
    consumerGroup: req('string'),
  },
});

export type GetConsumerConnectionListRequestHeader = HeaderOf<typeof GetConsumerConnectionListRequestHeader>;
