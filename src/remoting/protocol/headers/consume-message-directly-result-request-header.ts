import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** CONSUME_MESSAGE_DIRECTLY (309) request, admin to broker and broker to client. */
export const ConsumeMessageDirectlyResultRequestHeader = defineHeader({
  name: 'ConsumeMessageDirectlyResultRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ConsumeMessageDirectlyResultRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    clientId: opt('string'),
    msgId: opt('string'),
    brokerName: opt('string'),
  },
});

export type ConsumeMessageDirectlyResultRequestHeader = HeaderOf<
  typeof ConsumeMessageDirectlyResultRequestHeader
>;
