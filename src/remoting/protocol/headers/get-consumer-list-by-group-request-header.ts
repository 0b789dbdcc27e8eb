import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_CONSUMER_LIST_BY_GROUP (38) request. */
export const GetConsumerListByGroupRequestHeader = defineHeader({
  name: 'GetConsumerListByGroupRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumerListByGroupRequestHeader`,
  fields: {
    consumerGroup: req('string'),
  },
});

export type GetConsumerListByGroupRequestHeader = HeaderOf<typeof GetConsumerListByGroupRequestHeader>;
