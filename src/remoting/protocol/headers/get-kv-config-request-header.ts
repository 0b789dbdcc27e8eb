import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** GET_KV_CONFIG (101) request. */
export const GetKVConfigRequestHeader = defineHeader({
  name: 'GetKVConfigRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.GetKVConfigRequestHeader`,
  fields: {
    namespace: req('string'),
    key: req('string'),
  },
});

export type GetKVConfigRequestHeader = HeaderOf<typeof GetKVConfigRequestHeader>;
