import { defineHeader, type HeaderOf, opt } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** GET_KV_CONFIG (101) response. */
export const GetKVConfigResponseHeader = defineHeader({
  name: 'GetKVConfigResponseHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.GetKVConfigResponseHeader`,
  fields: {
    value: opt('string'),
  },
});

export type GetKVConfigResponseHeader = HeaderOf<typeof GetKVConfigResponseHeader>;
