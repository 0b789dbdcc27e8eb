/**
 * PlainPermissionManager.checkPerm: does the account own what the request needs. The admin rule
 * takes the admin request table as a parameter (ours is stricter than upstream's, see
 * remoting/protocol/admin-request-codes.ts).
 */
import { AclException, AclFrame } from './acl-exception.js';
import { checkPermission, isRetryTopic, printResource } from './permission.js';
import type { OwnedAccess } from './plain-access-config.js';

export function checkPerm(
  code: number,
  needed: ReadonlyMap<string, number> | undefined,
  owned: OwnedAccess,
  needAdminPerm: (code: number) => boolean,
): void {
  if (needAdminPerm(code) && !owned.admin) {
    throw new AclException(
      `Need admin permission for request code=${code}, but accessKey=${owned.accessKey} is not`,
      AclFrame.checkPermAdmin,
    );
  }
  if (needed === undefined) return;
  // An admin account that lists no resources may do everything.
  if (owned.resourcePerms === undefined && owned.admin) return;
  for (const [resource, perm] of needed) {
    const isGroup = isRetryTopic(resource);
    const explicit = owned.resourcePerms?.get(resource);
    if (explicit === undefined) {
      const fallback = isGroup ? owned.defaultGroupPerm : owned.defaultTopicPerm;
      if (!checkPermission(perm, fallback)) {
        throw new AclException(
          `No default permission for ${printResource(resource, isGroup)}`,
          AclFrame.checkPermDefault,
        );
      }
      continue;
    }
    if (!checkPermission(perm, explicit)) {
      // Upstream words the explicit case the same way.
      throw new AclException(
        `No default permission for ${printResource(resource, isGroup)}`,
        AclFrame.checkPermExplicit,
      );
    }
  }
}
