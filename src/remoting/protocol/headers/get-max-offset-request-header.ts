import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** GET_MAX_OFFSET (30) request. */
export const GetMaxOffsetRequestHeader = defineHeader({
  name: 'GetMaxOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetMaxOffsetRequestHeader`,
  fields: {
    topic: req('string'),
    queueId: req('int'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type GetMaxOffsetRequestHeader = HeaderOf<typeof GetMaxOffsetRequestHeader>;
