import { defineHeader, type HeaderOf, opt, req, withDefault } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/**
 * END_TRANSACTION (37, oneway) request. commitOrRollback is a MessageSysFlag transaction type (0, 8 or
 * 12).
 */
export const EndTransactionRequestHeader = defineHeader({
  name: 'EndTransactionRequestHeader',
  javaClass: `${HEADER_PACKAGE}.EndTransactionRequestHeader`,
  fields: {
    producerGroup: req('string'),
    tranStateTableOffset: req('long'),
    commitLogOffset: req('long'),
    commitOrRollback: req('int'),
    fromTransactionCheck: withDefault('boolean', false, false),
    msgId: req('string'),
    transactionId: opt('string'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
});

export type EndTransactionRequestHeader = HeaderOf<typeof EndTransactionRequestHeader>;
