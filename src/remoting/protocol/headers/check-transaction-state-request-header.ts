import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** CHECK_TRANSACTION_STATE (39, broker to client, oneway) request. */
export const CheckTransactionStateRequestHeader = defineHeader({
  name: 'CheckTransactionStateRequestHeader',
  javaClass: `${HEADER_PACKAGE}.CheckTransactionStateRequestHeader`,
  fields: {
    tranStateTableOffset: req('long'),
    commitLogOffset: req('long'),
    msgId: opt('string'),
    transactionId: opt('string'),
    offsetMsgId: opt('string'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type CheckTransactionStateRequestHeader = HeaderOf<typeof CheckTransactionStateRequestHeader>;
