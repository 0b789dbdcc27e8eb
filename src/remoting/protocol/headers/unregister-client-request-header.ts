import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** UNREGISTER_CLIENT (35) request. The key really is `clientID`. */
export const UnregisterClientRequestHeader = defineHeader({
  name: 'UnregisterClientRequestHeader',
  javaClass: `${HEADER_PACKAGE}.UnregisterClientRequestHeader`,
  fields: {
    clientID: req('string'),
    producerGroup: opt('string'),
    consumerGroup: opt('string'),
  },
});

export type UnregisterClientRequestHeader = HeaderOf<typeof UnregisterClientRequestHeader>;
