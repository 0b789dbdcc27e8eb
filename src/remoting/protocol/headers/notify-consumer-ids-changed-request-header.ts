import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** NOTIFY_CONSUMER_IDS_CHANGED (40, broker to client, oneway) request. */
export const NotifyConsumerIdsChangedRequestHeader = defineHeader({
  name: 'NotifyConsumerIdsChangedRequestHeader',
  javaClass: `${HEADER_PACKAGE}.NotifyConsumerIdsChangedRequestHeader`,
  fields: {
    consumerGroup: req('string'),
  },
});

export type NotifyConsumerIdsChangedRequestHeader = HeaderOf<typeof NotifyConsumerIdsChangedRequestHeader>;
