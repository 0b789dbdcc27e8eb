import { defineHeader, type HeaderOf, opt, req } from '../header-schema.js';
import { NAMESRV_HEADER_PACKAGE } from './packages.js';

/** GET_ROUTEINFO_BY_TOPIC (105) request. acceptStandardJsonOnly is 4.9.4+. */
export const GetRouteInfoRequestHeader = defineHeader({
  name: 'GetRouteInfoRequestHeader',
  javaClass: `${NAMESRV_HEADER_PACKAGE}.GetRouteInfoRequestHeader`,
  fields: {
    topic: req('string'),
    acceptStandardJsonOnly: opt('boolean'),
  },
});

export type GetRouteInfoRequestHeader = HeaderOf<typeof GetRouteInfoRequestHeader>;
