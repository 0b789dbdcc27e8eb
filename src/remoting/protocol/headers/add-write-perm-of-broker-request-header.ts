import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** ADD_WRITE_PERM_OF_BROKER (327) request. */
export const AddWritePermOfBrokerRequestHeader = defineHeader({
  name: 'AddWritePermOfBrokerRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.AddWritePermOfBrokerRequestHeader`,
  fields: {
    brokerName: req('string'),
  },
});

export type AddWritePermOfBrokerRequestHeader = HeaderOf<typeof AddWritePermOfBrokerRequestHeader>;
