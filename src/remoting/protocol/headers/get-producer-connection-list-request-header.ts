import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_PRODUCER_CONNECTION_LIST (204) request. */
export const GetProducerConnectionListRequestHeader = defineHeader({
  name: 'GetProducerConnectionListRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetProducerConnectionListRequestHeader`,
  fields: {
    producerGroup: req('string'),
  },
});

export type GetProducerConnectionListRequestHeader = HeaderOf<typeof GetProducerConnectionListRequestHeader>;
