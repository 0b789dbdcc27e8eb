import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** WIPE_WRITE_PERM_OF_BROKER (205) response. */
export const WipeWritePermOfBrokerResponseHeader = defineHeader({
  name: 'WipeWritePermOfBrokerResponseHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.WipeWritePermOfBrokerResponseHeader`,
  fields: {
    wipeTopicCount: req('int'),
  },
});

export type WipeWritePermOfBrokerResponseHeader = HeaderOf<typeof WipeWritePermOfBrokerResponseHeader>;
