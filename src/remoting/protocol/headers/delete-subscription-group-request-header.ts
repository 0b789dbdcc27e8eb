import { defineHeader, type HeaderOf, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/** DELETE_SUBSCRIPTIONGROUP (207) request. */
export const DeleteSubscriptionGroupRequestHeader = defineHeader({
  name: 'DeleteSubscriptionGroupRequestHeader',
  javaClass: `${HEADER_PACKAGE}.DeleteSubscriptionGroupRequestHeader`,
  fields: {
    groupName: req('string'),
    removeOffset: prim('boolean'),
  },
});

export type DeleteSubscriptionGroupRequestHeader = HeaderOf<typeof DeleteSubscriptionGroupRequestHeader>;
