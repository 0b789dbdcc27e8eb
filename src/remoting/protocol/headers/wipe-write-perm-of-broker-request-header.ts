import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** WIPE_WRITE_PERM_OF_BROKER (205) request. */
export const WipeWritePermOfBrokerRequestHeader = defineHeader({
  name: 'WipeWritePermOfBrokerRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.WipeWritePermOfBrokerRequestHeader`,
  fields: {
    brokerName: req('string'),
  },
});

export type WipeWritePermOfBrokerRequestHeader = HeaderOf<typeof WipeWritePermOfBrokerRequestHeader>;
