/**
 * One account of plain_acl.yml (upstream PlainAccessConfig) and what the broker keeps of it
 * (PlainAccessResource, owned side): perms parsed, whitelist compiled. Messages are upstream's except
 * that a secret key is never written into one (upstream prints it; it would reach logs and the ACL
 * admin client's remark).
 */
import { AclException, AclFrame } from './acl-exception.js';
import { parsePermFromString, parseResourcePerms } from './permission.js';
import { getRemoteAddressStrategy, type RemoteAddressStrategy } from './remote-address-strategy.js';

/** AclConstants.ACCESS_KEY_MIN_LENGTH / SECRET_KEY_MIN_LENGTH: keys must be longer than this. */
export const ACCESS_KEY_MIN_LENGTH = 6;
export const SECRET_KEY_MIN_LENGTH = 6;

export interface PlainAccessConfig {
  accessKey?: string | undefined;
  secretKey?: string | undefined;
  whiteRemoteAddress?: string | undefined;
  admin?: boolean | undefined;
  defaultTopicPerm?: string | undefined;
  defaultGroupPerm?: string | undefined;
  topicPerms?: string[] | undefined;
  groupPerms?: string[] | undefined;
}

export interface OwnedAccess {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly admin: boolean;
  readonly defaultTopicPerm: number;
  readonly defaultGroupPerm: number;
  /** Topics by name, groups by retry topic; undefined when the account lists none (upstream's null map). */
  readonly resourcePerms: ReadonlyMap<string, number> | undefined;
  readonly remoteAddressStrategy: RemoteAddressStrategy;
}

/** Stands for a secret in messages. */
export const HIDDEN_SECRET = '******';

function describeSecret(secret: string | undefined): string {
  return secret === undefined ? 'null' : `${HIDDEN_SECRET}(length ${secret.length})`;
}

/** checkPlainAccessConfig: both keys present and longer than 6 characters. */
export function checkPlainAccessConfig(config: PlainAccessConfig): void {
  const { accessKey, secretKey } = config;
  if (
    accessKey === undefined ||
    secretKey === undefined ||
    accessKey.length <= ACCESS_KEY_MIN_LENGTH ||
    secretKey.length <= SECRET_KEY_MIN_LENGTH
  ) {
    throw new AclException(
      `The accessKey=${accessKey ?? 'null'} and secretKey=${describeSecret(secretKey)} cannot be null and length should longer than 6`,
      AclFrame.checkAccountConfig,
    );
  }
}

/** buildPlainAccessResource: a missing default perm is DENY, as upstream. */
export function buildOwnedAccess(config: PlainAccessConfig): OwnedAccess {
  checkPlainAccessConfig(config);
  const perms = new Map<string, number>();
  parseResourcePerms(perms, false, config.groupPerms);
  parseResourcePerms(perms, true, config.topicPerms);
  const listed = (config.groupPerms?.length ?? 0) > 0 || (config.topicPerms?.length ?? 0) > 0;
  return {
    accessKey: config.accessKey as string,
    secretKey: config.secretKey as string,
    admin: config.admin === true,
    defaultTopicPerm: parsePermFromString(config.defaultTopicPerm),
    defaultGroupPerm: parsePermFromString(config.defaultGroupPerm),
    resourcePerms: listed ? perms : undefined,
    remoteAddressStrategy: getRemoteAddressStrategy(config.whiteRemoteAddress),
  };
}
