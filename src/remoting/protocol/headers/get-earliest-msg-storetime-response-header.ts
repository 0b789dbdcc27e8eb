import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_EARLIEST_MSG_STORETIME (32) response. */
export const GetEarliestMsgStoretimeResponseHeader = defineHeader({
  name: 'GetEarliestMsgStoretimeResponseHeader',
  javaClass: `${HEADER_PACKAGE}.GetEarliestMsgStoretimeResponseHeader`,
  fields: {
    timestamp: req('long'),
  },
});

export type GetEarliestMsgStoretimeResponseHeader = HeaderOf<typeof GetEarliestMsgStoretimeResponseHeader>;
