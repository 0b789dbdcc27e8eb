import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** GET_EARLIEST_MSG_STORETIME (32) request. */
export const GetEarliestMsgStoretimeRequestHeader = defineHeader({
  name: 'GetEarliestMsgStoretimeRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetEarliestMsgStoretimeRequestHeader`,
  fields: {
    topic: req('string'),
    queueId: req('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type GetEarliestMsgStoretimeRequestHeader = HeaderOf<typeof GetEarliestMsgStoretimeRequestHeader>;
