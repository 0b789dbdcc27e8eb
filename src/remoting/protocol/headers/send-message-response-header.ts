import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/**
 * Response of every send code. FastCodesHeader. `msgId` is the offsetMsgId (comma-joined for a batch).
 * The broker also puts MSG_REGION and TRACE_ON into extFields, outside this header.
 */
export const SendMessageResponseHeader = defineHeader({
  name: 'SendMessageResponseHeader',
  javaClass: `${HEADER_PACKAGE}.SendMessageResponseHeader`,
  fields: {
    msgId: req('string'),
    queueId: req('int'),
    queueOffset: req('long'),
    transactionId: opt('string'),
  },
  fastCodes: ['msgId', 'queueId', 'queueOffset', 'transactionId'],
});

export type SendMessageResponseHeader = HeaderOf<typeof SendMessageResponseHeader>;
