import { defineHeader, type HeaderOf, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** CLONE_GROUP_OFFSET (314) request. */
export const CloneGroupOffsetRequestHeader = defineHeader({
  name: 'CloneGroupOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.CloneGroupOffsetRequestHeader`,
  fields: {
    srcGroup: req('string'),
    destGroup: req('string'),
    topic: opt('string'),
    offline: prim('boolean'),
  },
});

export type CloneGroupOffsetRequestHeader = HeaderOf<typeof CloneGroupOffsetRequestHeader>;
