import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_MIN_OFFSET (31) response. */
export const GetMinOffsetResponseHeader = defineHeader({
  name: 'GetMinOffsetResponseHeader',
  javaClass: `${HEADER_PACKAGE}.GetMinOffsetResponseHeader`,
  fields: {
    offset: req('long'),
  },
});

export type GetMinOffsetResponseHeader = HeaderOf<typeof GetMinOffsetResponseHeader>;
