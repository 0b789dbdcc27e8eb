import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** PULL_MESSAGE (11) response. FastCodesHeader. */
export const PullMessageResponseHeader = defineHeader({
  name: 'PullMessageResponseHeader',
  javaClass: `${HEADER_PACKAGE}.PullMessageResponseHeader`,
  fields: {
    suggestWhichBrokerId: req('long'),
    nextBeginOffset: req('long'),
    minOffset: req('long'),
    maxOffset: req('long'),
  },
  fastCodes: ['suggestWhichBrokerId', 'nextBeginOffset', 'minOffset', 'maxOffset'],
});

export type PullMessageResponseHeader = HeaderOf<typeof PullMessageResponseHeader>;
