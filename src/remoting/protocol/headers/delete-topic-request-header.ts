import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** DELETE_TOPIC_IN_BROKER (215) request. */
export const DeleteTopicRequestHeader = defineHeader({
  name: 'DeleteTopicRequestHeader',
  javaClass: `${HEADER_PACKAGE}.DeleteTopicRequestHeader`,
  fields: {
    topic: req('string'),
  },
});

export type DeleteTopicRequestHeader = HeaderOf<typeof DeleteTopicRequestHeader>;
