import { defineHeader, type HeaderOf, opt, req, withDefault } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** UPDATE_AND_CREATE_TOPIC (17) request. topicFilterType is SINGLE_TAG or MULTI_TAG. */
export const CreateTopicRequestHeader = defineHeader({
  name: 'CreateTopicRequestHeader',
  javaClass: `${HEADER_PACKAGE}.CreateTopicRequestHeader`,
  fields: {
    topic: req('string'),
    defaultTopic: req('string'),
    readQueueNums: req('int'),
    writeQueueNums: req('int'),
    perm: req('int'),
    topicFilterType: req('string'),
    topicSysFlag: opt('int'),
    order: withDefault('boolean', false, true),
  },
});

export type CreateTopicRequestHeader = HeaderOf<typeof CreateTopicRequestHeader>;
