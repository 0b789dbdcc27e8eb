import { defineHeader, type HeaderOf, req, reqPrim } from '../header-schema.js';
import { HEADER_PACKAGE_5X, TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS } from './packages-5x.js';

/** POLLING_INFO (200055) request, 5.5.0's PollingInfoRequestHeader: how many pops are parked. */
export const PollingInfoRequestHeader = defineHeader({
  name: 'PollingInfoRequestHeader',
  javaClass: `${HEADER_PACKAGE_5X}.PollingInfoRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: reqPrim('int'),
    ...TOPIC_QUEUE_REQUEST_HEADER_5X_FIELDS,
  },
});

export type PollingInfoRequestHeader = HeaderOf<typeof PollingInfoRequestHeader>;
