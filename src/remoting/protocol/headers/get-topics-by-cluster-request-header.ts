import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** GET_TOPICS_BY_CLUSTER (224) request. */
export const GetTopicsByClusterRequestHeader = defineHeader({
  name: 'GetTopicsByClusterRequestHeader',
  javaClass: `${HEADER_PACKAGE}.GetTopicsByClusterRequestHeader`,
  fields: {
    cluster: req('string'),
  },
});

export type GetTopicsByClusterRequestHeader = HeaderOf<typeof GetTopicsByClusterRequestHeader>;
