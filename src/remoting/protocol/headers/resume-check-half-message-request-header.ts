import { defineHeader, type HeaderOf, opt } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** RESUME_CHECK_HALF_MESSAGE (323) request. */
export const ResumeCheckHalfMessageRequestHeader = defineHeader({
  name: 'ResumeCheckHalfMessageRequestHeader',
  javaClass: `${HEADER_PACKAGE}.ResumeCheckHalfMessageRequestHeader`,
  fields: {
    msgId: opt('string'),
  },
});

export type ResumeCheckHalfMessageRequestHeader = HeaderOf<typeof ResumeCheckHalfMessageRequestHeader>;
