import { defineHeader, type HeaderOf, prim, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X } from './packages-5x.js';

/** NOTIFICATION (200054) response: `hasMsg`, and `pollingFull` when the request could not be parked. */
export const NotificationResponseHeader = defineHeader({
  name: 'NotificationResponseHeader',
  javaClass: `${HEADER_PACKAGE_5X}.NotificationResponseHeader`,
  fields: {
    hasMsg: reqPrim('boolean'),
    pollingFull: prim('boolean'),
  },
});

export type NotificationResponseHeader = HeaderOf<typeof NotificationResponseHeader>;
