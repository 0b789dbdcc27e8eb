import { defineHeader, type HeaderOf, opt } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** REGISTER_BROKER (103) response; both set only for a slave whose master is registered. */
export const RegisterBrokerResponseHeader = defineHeader({
  name: 'RegisterBrokerResponseHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.RegisterBrokerResponseHeader`,
  fields: {
    haServerAddr: opt('string'),
    masterAddr: opt('string'),
  },
});

export type RegisterBrokerResponseHeader = HeaderOf<typeof RegisterBrokerResponseHeader>;
