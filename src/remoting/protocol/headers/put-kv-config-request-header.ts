import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** PUT_KV_CONFIG (100) request. */
export const PutKVConfigRequestHeader = defineHeader({
  name: 'PutKVConfigRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.PutKVConfigRequestHeader`,
  fields: {
    namespace: req('string'),
    key: req('string'),
    value: req('string'),
  },
});

export type PutKVConfigRequestHeader = HeaderOf<typeof PutKVConfigRequestHeader>;
