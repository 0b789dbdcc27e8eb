import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_MAX_OFFSET (30) response. */
export const GetMaxOffsetResponseHeader = defineHeader({
  name: 'GetMaxOffsetResponseHeader',
  javaClass: `${HEADER_PACKAGE}.GetMaxOffsetResponseHeader`,
  fields: {
    offset: req('long'),
  },
});

export type GetMaxOffsetResponseHeader = HeaderOf<typeof GetMaxOffsetResponseHeader>;
