import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_CONSUMER_STATUS_FROM_CLIENT (221) and INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) request. */
export const GetConsumerStatusRequestHeader = defineHeader({
  name: 'GetConsumerStatusRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumerStatusRequestHeader`,
  fields: {
    topic: req('string'),
    group: req('string'),
    clientAddr: opt('string'),
  },
});

export type GetConsumerStatusRequestHeader = HeaderOf<typeof GetConsumerStatusRequestHeader>;
