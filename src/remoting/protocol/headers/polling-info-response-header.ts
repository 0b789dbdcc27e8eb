import { defineHeader, type HeaderOf, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X } from './packages-5x.js';

/** POLLING_INFO (200055) response. */
export const PollingInfoResponseHeader = defineHeader({
  name: 'PollingInfoResponseHeader',
  javaClass: `${HEADER_PACKAGE_5X}.PollingInfoResponseHeader`,
  fields: {
    pollingNum: reqPrim('int'),
  },
});

export type PollingInfoResponseHeader = HeaderOf<typeof PollingInfoResponseHeader>;
