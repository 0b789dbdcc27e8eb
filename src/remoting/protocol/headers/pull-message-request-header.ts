import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { HEADER_PACKAGE, RPC_REQUEST_HEADER_FIELDS } from './packages.js';

/** PULL_MESSAGE (11) request. FastCodesHeader (its encoder writes `bname` last). */
export const PullMessageRequestHeader = defineHeader({
  name: 'PullMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.PullMessageRequestHeader`,
  fields: {
    consumerGroup: req('string'),
    topic: req('string'),
    queueId: req('int'),
    queueOffset: req('long'),
    maxMsgNums: req('int'),
    sysFlag: req('int'),
    commitOffset: req('long'),
    suspendTimeoutMillis: req('long'),
    subscription: opt('string'),
    subVersion: req('long'),
    expressionType: opt('string'),
    ...RPC_REQUEST_HEADER_FIELDS,
  },
  fastCodes: [
    'consumerGroup',
    'topic',
    'queueId',
    'queueOffset',
    'maxMsgNums',
    'sysFlag',
    'commitOffset',
    'suspendTimeoutMillis',
    'subscription',
    'subVersion',
    'expressionType',
    'bname',
  ],
});

export type PullMessageRequestHeader = HeaderOf<typeof PullMessageRequestHeader>;
