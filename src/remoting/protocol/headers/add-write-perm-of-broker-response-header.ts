import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** ADD_WRITE_PERM_OF_BROKER (327) response. */
export const AddWritePermOfBrokerResponseHeader = defineHeader({
  name: 'AddWritePermOfBrokerResponseHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.AddWritePermOfBrokerResponseHeader`,
  fields: {
    addTopicCount: req('int'),
  },
});

export type AddWritePermOfBrokerResponseHeader = HeaderOf<typeof AddWritePermOfBrokerResponseHeader>;
