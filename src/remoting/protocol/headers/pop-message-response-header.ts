import { defineHeader, type HeaderOf, opt, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X } from './packages-5x.js';

/**
 * POP_MESSAGE (200050) response. The three info strings are built by `src/common/pop/extra-info.ts`
 * (upstream ExtraInfoUtil); the client builds each message's receipt handle from them.
 */
export const PopMessageResponseHeader = defineHeader({
  name: 'PopMessageResponseHeader',
  javaClass: `${HEADER_PACKAGE_5X}.PopMessageResponseHeader`,
  fields: {
    popTime: reqPrim('long'),
    invisibleTime: reqPrim('long'),
    reviveQid: reqPrim('int'),
    restNum: reqPrim('long'),
    startOffsetInfo: opt('string'),
    msgOffsetInfo: opt('string'),
    orderCountInfo: opt('string'),
  },
});

export type PopMessageResponseHeader = HeaderOf<typeof PopMessageResponseHeader>;
