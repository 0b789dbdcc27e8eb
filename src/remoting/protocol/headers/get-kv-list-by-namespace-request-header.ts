import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** GET_KVLIST_BY_NAMESPACE (219) request. */
export const GetKVListByNamespaceRequestHeader = defineHeader({
  name: 'GetKVListByNamespaceRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.GetKVListByNamespaceRequestHeader`,
  fields: {
    namespace: req('string'),
  },
});

export type GetKVListByNamespaceRequestHeader = HeaderOf<typeof GetKVListByNamespaceRequestHeader>;
