import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** DELETE_KV_CONFIG (102) request. */
export const DeleteKVConfigRequestHeader = defineHeader({
  name: 'DeleteKVConfigRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.DeleteKVConfigRequestHeader`,
  fields: {
    namespace: req('string'),
    key: req('string'),
  },
});

export type DeleteKVConfigRequestHeader = HeaderOf<typeof DeleteKVConfigRequestHeader>;
