import { defineHeader, type HeaderOf, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** UNREGISTER_BROKER (104) request. */
export const UnRegisterBrokerRequestHeader = defineHeader({
  name: 'UnRegisterBrokerRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.UnRegisterBrokerRequestHeader`,
  fields: {
    brokerName: req('string'),
    brokerAddr: req('string'),
    clusterName: req('string'),
    brokerId: req('long'),
  },
});

export type UnRegisterBrokerRequestHeader = HeaderOf<typeof UnRegisterBrokerRequestHeader>;
