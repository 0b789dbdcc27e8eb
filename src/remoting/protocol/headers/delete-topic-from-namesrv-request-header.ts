import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** DELETE_TOPIC_IN_NAMESRV (216) request. */
export const DeleteTopicFromNamesrvRequestHeader = defineHeader({
  name: 'DeleteTopicFromNamesrvRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.DeleteTopicFromNamesrvRequestHeader`,
  fields: {
    topic: req('string'),
    clusterName: opt('string'),
  },
});

export type DeleteTopicFromNamesrvRequestHeader = HeaderOf<typeof DeleteTopicFromNamesrvRequestHeader>;
