import { defineHeader, type HeaderOf, prim, req, withDefault } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** REGISTER_BROKER (103) request. bodyCrc32 0 skips the check. */
export const RegisterBrokerRequestHeader = defineHeader({
  name: 'RegisterBrokerRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.RegisterBrokerRequestHeader`,
  fields: {
    brokerName: req('string'),
    brokerAddr: req('string'),
    clusterName: req('string'),
    haServerAddr: req('string'),
    brokerId: req('long'),
    compressed: prim('boolean'),
    bodyCrc32: withDefault('int', 0, false),
  },
});

export type RegisterBrokerRequestHeader = HeaderOf<typeof RegisterBrokerRequestHeader>;
