/**
 * Where the plain ACL files are (PlainPermissionManager's constructor): the default file
 * `<rocketmqHome>/conf/plain_acl.yml` (another path with the aclPlainFile setting, upstream's
 * `-Drocketmq.acl.plain.file`, relative to the home unless absolute) and every `*.yml`/`*.yaml`
 * under `<rocketmqHome>/conf/acl/`, recursively.
 */
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { ValidationError } from '../../errors.js';

/** upstream's default for `rocketmq.acl.plain.file`, relative to the home directory. */
export const DEFAULT_ACL_PLAIN_FILE = 'conf/plain_acl.yml';

export interface AclPaths {
  /** Absolute; undefined when only an absolute default file was given. */
  readonly fileHome: string | undefined;
  readonly defaultAclFile: string;
  /** `<home>/conf/acl`, undefined without a home. */
  readonly defaultAclDir: string | undefined;
}

export function aclPaths(
  rocketmqHome: string | undefined,
  aclPlainFile: string = DEFAULT_ACL_PLAIN_FILE,
): AclPaths {
  const home = rocketmqHome === undefined || rocketmqHome.trim() === '' ? undefined : resolve(rocketmqHome);
  if (!isAbsolute(aclPlainFile) && home === undefined) {
    throw new ValidationError(
      `ACL is enabled but no rocketmqHome is set (broker.conf rocketmqHome or env ROCKETMQ_HOME) to find ${aclPlainFile}; set one, or set aclPlainFile to an absolute path`,
    );
  }
  return {
    fileHome: home,
    defaultAclFile: isAbsolute(aclPlainFile) ? aclPlainFile : join(home as string, aclPlainFile),
    defaultAclDir: home === undefined ? undefined : join(home, 'conf', 'acl'),
  };
}

/** Every ACL file, sorted per directory (upstream takes the directory's order), the default file last. */
export async function listAclFiles(paths: AclPaths): Promise<string[]> {
  const out: string[] = [];
  const toolsFile = paths.fileHome === undefined ? undefined : join(paths.fileHome, 'conf', 'tools.yml');
  const walk = async (dir: string): Promise<void> => {
    let entries: string[];
    try {
      entries = (await readdir(dir)).sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of entries) {
      const full = join(dir, name);
      if (full === toolsFile) continue;
      if (name.endsWith('.yml') || name.endsWith('.yaml')) {
        out.push(full);
        continue;
      }
      const s = await stat(full).catch(() => undefined);
      if (s?.isDirectory() === true) await walk(full);
    }
  };
  if (paths.defaultAclDir !== undefined) await walk(paths.defaultAclDir);
  if (!out.includes(paths.defaultAclFile)) {
    const s = await stat(paths.defaultAclFile).catch(() => undefined);
    if (s !== undefined) out.push(paths.defaultAclFile);
  }
  return out;
}
