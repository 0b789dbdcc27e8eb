import { defineHeader, type HeaderOf, opt, prim, req } from '../header-schema.js';
import { HEADER_PACKAGE } from './packages.js';

/**
 * The headers of upstream's four ACL admin requests (4.9.8), kept out of the golden-fixture registry
 * until fixtures are generated for them. `topicPerms` and `groupPerms` are comma-joined lists.
 */

/** UPDATE_AND_CREATE_ACL_CONFIG (50) request. */
export const CreateAccessConfigRequestHeader = defineHeader({
  name: 'CreateAccessConfigRequestHeader',
  javaClass: `${HEADER_PACKAGE}.CreateAccessConfigRequestHeader`,
  fields: {
    accessKey: req('string'),
    secretKey: opt('string'),
    whiteRemoteAddress: opt('string'),
    admin: prim('boolean'),
    defaultTopicPerm: opt('string'),
    defaultGroupPerm: opt('string'),
    topicPerms: opt('string'),
    groupPerms: opt('string'),
  },
});
export type CreateAccessConfigRequestHeader = HeaderOf<typeof CreateAccessConfigRequestHeader>;

/** DELETE_ACL_CONFIG (51) request. */
export const DeleteAccessConfigRequestHeader = defineHeader({
  name: 'DeleteAccessConfigRequestHeader',
  javaClass: `${HEADER_PACKAGE}.DeleteAccessConfigRequestHeader`,
  fields: {
    accessKey: req('string'),
  },
});
export type DeleteAccessConfigRequestHeader = HeaderOf<typeof DeleteAccessConfigRequestHeader>;

/** GET_BROKER_CLUSTER_ACL_INFO (52) response: DataVersion JSON of the default file and of every file. */
export const GetBrokerAclConfigResponseHeader = defineHeader({
  name: 'GetBrokerAclConfigResponseHeader',
  javaClass: `${HEADER_PACKAGE}.GetBrokerAclConfigResponseHeader`,
  fields: {
    version: req('string'),
    allAclFileVersion: opt('string'),
    brokerName: req('string'),
    brokerAddr: req('string'),
    clusterName: req('string'),
  },
});
export type GetBrokerAclConfigResponseHeader = HeaderOf<typeof GetBrokerAclConfigResponseHeader>;

/** UPDATE_GLOBAL_WHITE_ADDRS_CONFIG (53) request; an empty aclFileFullPath means the default file. */
export const UpdateGlobalWhiteAddrsConfigRequestHeader = defineHeader({
  name: 'UpdateGlobalWhiteAddrsConfigRequestHeader',
  javaClass: `${HEADER_PACKAGE}.UpdateGlobalWhiteAddrsConfigRequestHeader`,
  fields: {
    globalWhiteAddrs: req('string'),
    aclFileFullPath: req('string'),
  },
});
export type UpdateGlobalWhiteAddrsConfigRequestHeader = HeaderOf<
  typeof UpdateGlobalWhiteAddrsConfigRequestHeader
>;
