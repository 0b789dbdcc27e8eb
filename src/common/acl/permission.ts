/**
 * Permission bits of upstream's plain ACL (`acl/.../common/Permission.java`) and the rules that read
 * them from plain_acl.yml and compare them.
 */
import { AclException, AclFrame } from './acl-exception.js';

export const Permission = {
  DENY: 1,
  ANY: 2,
  PUB: 4,
  SUB: 8,
} as const;

/**
 * `PUB`, `SUB`, `PUB|SUB`, `SUB|PUB`, `DENY` after trimming, case-sensitive; anything else, and a
 * missing value, is DENY (as upstream: a typo closes rather than opens).
 */
export function parsePermFromString(text: string | undefined | null): number {
  if (text === undefined || text === null) return Permission.DENY;
  switch (text.trim()) {
    case 'PUB':
      return Permission.PUB;
    case 'SUB':
      return Permission.SUB;
    case 'PUB|SUB':
    case 'SUB|PUB':
      return Permission.PUB | Permission.SUB;
    default:
      return Permission.DENY;
  }
}

/** DENY owned wins; ANY needed is met by PUB or SUB; otherwise one shared bit is enough. */
export function checkPermission(needed: number, owned: number): boolean {
  if ((owned & Permission.DENY) !== 0) return false;
  if ((needed & Permission.ANY) !== 0) {
    return (owned & Permission.PUB) !== 0 || (owned & Permission.SUB) !== 0;
  }
  return (needed & owned) !== 0;
}

/** upstream's MixAll.RETRY_GROUP_TOPIC_PREFIX: group resources are kept as their retry topic. */
export const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';

export function getRetryTopic(group: string | undefined): string | undefined {
  return group === undefined ? undefined : `${RETRY_GROUP_TOPIC_PREFIX}${group}`;
}

export function isRetryTopic(resource: string | undefined): boolean {
  return resource?.startsWith(RETRY_GROUP_TOPIC_PREFIX) === true;
}

/** PlainAccessResource.printStr: `topic:<t>`, or `group:<g>` without the retry prefix. */
export function printResource(resource: string, isGroup: boolean): string {
  return isGroup ? `group:${resource.slice(RETRY_GROUP_TOPIC_PREFIX.length)}` : `topic:${resource}`;
}

/** commons-lang StringUtils.split: separators collapse, empty tokens dropped. */
export function splitTokens(text: string, separator: string): string[] {
  return text.split(separator).filter((t) => t !== '');
}

/**
 * `name=PERM` entries of topicPerms/groupPerms into `into` (groups under their retry topic); an
 * entry that is not exactly two parts is upstream's "Parse resource permission failed" error.
 */
export function parseResourcePerms(
  into: Map<string, number>,
  isTopic: boolean,
  resources: readonly string[] | undefined,
): void {
  if (resources === undefined) return;
  for (const resource of resources) {
    const items = splitTokens(resource, '=');
    if (items.length !== 2) {
      throw new AclException(
        `Parse resource permission failed for ${isTopic ? 'topic' : 'group'}:${resource}`,
        AclFrame.parseResourcePerms,
      );
    }
    const name = (items[0] as string).trim();
    into.set(isTopic ? name : `${RETRY_GROUP_TOPIC_PREFIX}${name}`, parsePermFromString(items[1]));
  }
}

/** Permission.checkResourcePerms: what the ACL admin request checks before writing a perm list. */
export function checkResourcePerms(resources: readonly string[] | undefined): void {
  if (resources === undefined) return;
  for (const resource of resources) {
    const items = splitTokens(resource, '=');
    if (items.length !== 2) {
      throw new AclException(
        `Parse Resource format error for ${resource}.\nThe expected resource format is 'Res=Perm'. For example: topicA=SUB`,
        AclFrame.checkResourcePerms,
      );
    }
    const perm = (items[1] as string).trim();
    if (perm !== 'DENY' && parsePermFromString(perm) === Permission.DENY) {
      throw new AclException(
        `Parse resource permission error for ${resource}.\nThe expected permissions are 'SUB' or 'PUB' or 'SUB|PUB' or 'PUB|SUB'.`,
        AclFrame.checkResourcePerms,
      );
    }
  }
}
