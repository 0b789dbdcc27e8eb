import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** VIEW_MESSAGE_BY_ID (33) request: a commit log physical offset. */
export const ViewMessageRequestHeader = defineHeader({
  name: 'ViewMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ViewMessageRequestHeader`,
  fields: {
    offset: req('long'),
  },
});

export type ViewMessageRequestHeader = HeaderOf<typeof ViewMessageRequestHeader>;
