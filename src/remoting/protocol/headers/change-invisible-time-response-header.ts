import { defineHeader, type HeaderOf, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X } from './packages-5x.js';

/**
 * CHANGE_MESSAGE_INVISIBLETIME (200053) response: the client rebuilds the message's receipt handle
 * from these with ckQueueOffset = the message's own offset.
 */
export const ChangeInvisibleTimeResponseHeader = defineHeader({
  name: 'ChangeInvisibleTimeResponseHeader',
  javaClass: `${HEADER_PACKAGE_5X}.ChangeInvisibleTimeResponseHeader`,
  fields: {
    popTime: reqPrim('long'),
    invisibleTime: reqPrim('long'),
    reviveQid: reqPrim('int'),
  },
});

export type ChangeInvisibleTimeResponseHeader = HeaderOf<typeof ChangeInvisibleTimeResponseHeader>;
