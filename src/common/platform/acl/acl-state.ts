/**
 * One complete, immutable view of every ACL file: built whole by a load and swapped in only when
 * every file parsed and every account and whitelist entry is valid. (Upstream reloads a changed file
 * in place and can keep half of a bad one; we keep the whole last good state instead.)
 */

import { buildOwnedAccess, type OwnedAccess } from '../../acl/plain-access-config.js';
import { type AclFileDataVersion, readAclData } from '../../acl/plain-acl-yaml.js';
import { getRemoteAddressStrategy, type RemoteAddressStrategy } from '../../acl/remote-address-strategy.js';
import type { Logger } from '../../logger.js';
import { type AclPaths, listAclFiles } from './acl-paths.js';
import { readAclFile } from './plain-acl-file.js';

export interface AclState {
  readonly files: readonly string[];
  /** accessKey to its account; the first file that defines a key wins. */
  readonly accounts: ReadonlyMap<string, OwnedAccess>;
  /** accessKey to the file it lives in (upstream accessKeyTable). */
  readonly accessKeyTable: ReadonlyMap<string, string>;
  readonly globalWhiteRemoteAddresses: readonly RemoteAddressStrategy[];
  readonly dataVersions: ReadonlyMap<string, AclFileDataVersion>;
}

export const EMPTY_ACL_STATE: AclState = {
  files: [],
  accounts: new Map(),
  accessKeyTable: new Map(),
  globalWhiteRemoteAddresses: [],
  dataVersions: new Map(),
};

/** Throws (AclException, or an I/O error) on the first problem; nothing is half-applied. */
export async function loadAclState(paths: AclPaths, now: number, logger: Logger): Promise<AclState> {
  const files = await listAclFiles(paths);
  const accounts = new Map<string, OwnedAccess>();
  const accessKeyTable = new Map<string, string>();
  const whites: RemoteAddressStrategy[] = [];
  const dataVersions = new Map<string, AclFileDataVersion>();
  for (const file of files) {
    const map = await readAclFile(file);
    if (map === undefined) {
      logger.warn('No data in ACL file, skipped', { file });
      continue;
    }
    const data = readAclData(map, file);
    for (const entry of data.globalWhiteRemoteAddresses) whites.push(getRemoteAddressStrategy(entry));
    for (const config of data.accounts) {
      const owned = buildOwnedAccess(config);
      if (accessKeyTable.has(owned.accessKey)) {
        logger.warn('accessKey repeated in multiple ACL files, the first one is used', {
          accessKey: owned.accessKey,
          file,
        });
        continue;
      }
      accounts.set(owned.accessKey, owned);
      accessKeyTable.set(owned.accessKey, file);
    }
    dataVersions.set(file, data.dataVersion ?? { counter: 0, timestamp: now });
  }
  return { files, accounts, accessKeyTable, globalWhiteRemoteAddresses: whites, dataVersions };
}
