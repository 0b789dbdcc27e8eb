import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** GET_MIN_OFFSET (31) request. */
export const GetMinOffsetRequestHeader = defineHeader({
  name: 'GetMinOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetMinOffsetRequestHeader`,
  fields: {
    topic: req('string'),
    queueId: req('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type GetMinOffsetRequestHeader = HeaderOf<typeof GetMinOffsetRequestHeader>;
