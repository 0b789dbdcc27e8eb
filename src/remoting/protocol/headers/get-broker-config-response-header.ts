import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_BROKER_CONFIG (26) response: `version` is the DataVersion JSON of the configuration. */
export const GetBrokerConfigResponseHeader = defineHeader({
  name: 'GetBrokerConfigResponseHeader',
  javaClass: `${HEADER_PACKAGE}.GetBrokerConfigResponseHeader`,
  fields: {
    version: req('string'),
  },
});

export type GetBrokerConfigResponseHeader = HeaderOf<typeof GetBrokerConfigResponseHeader>;
