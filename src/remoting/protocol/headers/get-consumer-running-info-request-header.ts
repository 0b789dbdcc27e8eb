import { defineHeader, type HeaderOf, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_CONSUMER_RUNNING_INFO (307) request, admin to broker and broker to client. */
export const GetConsumerRunningInfoRequestHeader = defineHeader({
  name: 'GetConsumerRunningInfoRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetConsumerRunningInfoRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    clientId: req('string'),
    jstackEnable: prim('boolean'),
  },
});

export type GetConsumerRunningInfoRequestHeader = HeaderOf<typeof GetConsumerRunningInfoRequestHeader>;
