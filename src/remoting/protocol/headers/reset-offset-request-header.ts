import { defineHeader, type HeaderOf, req, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222) and RESET_CONSUMER_CLIENT_OFFSET (220) request. The key really
 * is `isForce`.
 */
export const ResetOffsetRequestHeader = defineHeader({
  name: 'ResetOffsetRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ResetOffsetRequestHeader`,
  fields: {
    topic: req('string'),
    group: req('string'),
    timestamp: reqPrim('long'),
    isForce: reqPrim('boolean'),
  },
});

export type ResetOffsetRequestHeader = HeaderOf<typeof ResetOffsetRequestHeader>;
