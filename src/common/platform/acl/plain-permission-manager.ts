/**
 * upstream's PlainPermissionManager: holds the accounts and whitelists of every plain ACL file,
 * decides each request (validate), reloads when the files change and edits them for the ACL admin
 * requests. Differences from 4.9.8: signatures compared in constant time and capped in length;
 * `_UNIQUE_KEY_QUERY` verified as 5.x does; a bad file keeps the whole last good state (upstream may keep half of it); the admin
 * request table is the caller's (ours covers every state-changing admin request); no secret in any
 * message or log line.
 */
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type AccessRequest, echoAccessKey } from '../../acl/access-request.js';
import { AclException, AclFrame } from '../../acl/acl-exception.js';
import type { AccessValidator } from '../../acl/acl-server-hook.js';
import {
  CLIENT_UNSIGNED_FIELDS,
  calRequestSignature,
  SERVER_UNSIGNED_FIELDS,
  signatureEquals,
} from '../../acl/acl-signer.js';
import { checkPerm } from '../../acl/check-perm.js';
import { checkResourcePerms, Permission } from '../../acl/permission.js';
import { buildOwnedAccess, type PlainAccessConfig } from '../../acl/plain-access-config.js';
import {
  type AclFileDataVersion,
  CONFIG_ACCOUNTS,
  CONFIG_DATA_VERSION,
  CONFIG_GLOBAL_WHITE_ADDRS,
} from '../../acl/plain-acl-yaml.js';
import { getRemoteAddressStrategy } from '../../acl/remote-address-strategy.js';
import type { Clock } from '../../clock.js';
import { MQVersion } from '../../constants.js';
import type { Logger } from '../../logger.js';
import { AclFileWatcher, aclFilesSnapshot, DEFAULT_ACL_FILE_WATCH_INTERVAL } from './acl-file-watcher.js';
import type { AclPaths } from './acl-paths.js';
import { type AclState, EMPTY_ACL_STATE, loadAclState } from './acl-state.js';
import { readAclFile, writeAclFile } from './plain-acl-file.js';

/** A Base64 HMAC-SHA1 is 28 characters; anything much longer is refused before any work. */
export const MAX_SIGNATURE_LENGTH = 128;

/**
 * What the verified content leaves out. 4.9.8 always leaves out `_UNIQUE_KEY_QUERY`, which its own
 * client signs, so QUERY_MESSAGE by key always failed; 5.x (ISSUE #5310) leaves it out only for
 * senders of 4.9.3 and older. We take 5.x's rule.
 */
function unsignedFieldsOf(version: number | undefined): ReadonlySet<string> {
  return version !== undefined && version <= MQVersion.V4_9_3
    ? SERVER_UNSIGNED_FIELDS
    : CLIENT_UNSIGNED_FIELDS;
}

/** TopicValidator.RMQ_SYS_TRACE_TOPIC: a plain send to it is allowed (upstream's trace exception). */
const RMQ_SYS_TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';

export interface PlainPermissionManagerOptions {
  paths: AclPaths;
  needAdminPerm: (code: number) => boolean;
  clock: Clock;
  logger: Logger;
  /** ms between looks at the files [5000]. */
  watchInterval?: number;
}

/** The account fields an UPDATE_AND_CREATE_ACL_CONFIG request carries. */
export type AccessConfigUpdate = PlainAccessConfig & { accessKey: string };

export class PlainPermissionManager implements AccessValidator {
  readonly paths: AclPaths;
  private state: AclState = EMPTY_ACL_STATE;
  private readonly watcher: AclFileWatcher;
  private readonly options: PlainPermissionManagerOptions;
  /** ACL admin requests run one at a time (upstream's methods are synchronized). */
  private editing: Promise<unknown> = Promise.resolve();

  constructor(options: PlainPermissionManagerOptions) {
    this.options = options;
    this.paths = options.paths;
    this.watcher = new AclFileWatcher({
      paths: options.paths,
      interval: options.watchInterval ?? DEFAULT_ACL_FILE_WATCH_INTERVAL,
      clock: options.clock,
      logger: options.logger,
      onChange: async () => {
        await this.reload();
      },
    });
  }

  /** Creates the default file if missing (empty, as upstream) and loads everything; throws on a bad file. */
  async start(): Promise<void> {
    await this.assureDefaultFileExists();
    const snapshot = await aclFilesSnapshot(this.paths);
    this.state = await loadAclState(this.paths, this.options.clock.now(), this.options.logger);
    this.options.logger.info('plain ACL loaded', {
      files: this.state.files.length,
      accounts: this.state.accounts.size,
    });
    this.watcher.start(snapshot);
  }

  stop(): void {
    this.watcher.stop();
  }

  /** Settles when a file check under way has finished. */
  get watcherIdle(): Promise<void> {
    return this.watcher.idle;
  }

  /** The current view (tests and the admin requests read it). */
  get current(): AclState {
    return this.state;
  }

  /** Loads every file again; a failure keeps the whole previous state and is logged as one error line. */
  async reload(): Promise<boolean> {
    try {
      this.state = await loadAclState(this.paths, this.options.clock.now(), this.options.logger);
      this.options.logger.info('plain ACL reloaded', {
        files: this.state.files.length,
        accounts: this.state.accounts.size,
      });
      return true;
    } catch (error) {
      this.options.logger.error('plain ACL reload failed, the last good configuration stays in force', {
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }

  /** Throws an AclException (upstream's message and frame) unless the request may go on. */
  validate(request: AccessRequest): void {
    const state = this.state;
    for (const strategy of state.globalWhiteRemoteAddresses) {
      if (strategy.match(request.whiteRemoteAddress)) return;
    }
    const accessKey = request.accessKey;
    if (accessKey === undefined)
      throw new AclException('No accessKey is configured', AclFrame.validateNoAccessKey);
    const owned = state.accounts.get(accessKey);
    if (!state.accessKeyTable.has(accessKey)) {
      throw new AclException(
        `No acl config for ${echoAccessKey(accessKey)}`,
        AclFrame.validateUnknownAccessKey,
      );
    }
    if (owned === undefined) {
      throw new AclException(
        `No PlainAccessResource for accessKey=${echoAccessKey(accessKey)}`,
        AclFrame.validateNoResource,
      );
    }
    if (owned.remoteAddressStrategy.match(request.whiteRemoteAddress)) return;
    const signature = request.signature;
    const signed =
      signature !== undefined &&
      signature.length <= MAX_SIGNATURE_LENGTH &&
      signatureEquals(
        calRequestSignature(
          request.extFields ?? {},
          request.body,
          unsignedFieldsOf(request.version),
          owned.secretKey,
        ),
        signature,
      );
    if (!signed) {
      throw new AclException(
        `Check signature failed for accessKey=${echoAccessKey(accessKey)}`,
        AclFrame.validateSignature,
      );
    }
    if (request.resources?.get(RMQ_SYS_TRACE_TOPIC) === Permission.PUB) return;
    checkPerm(request.code, request.resources, owned, this.options.needAdminPerm);
  }

  /** upstream's DataVersion JSON shape for the default file (GET_BROKER_CLUSTER_ACL_INFO `version`). */
  defaultFileVersion(): AclFileDataVersion {
    return (
      this.state.dataVersions.get(this.paths.defaultAclFile) ?? {
        counter: 0,
        timestamp: this.options.clock.now(),
      }
    );
  }

  allFileVersions(): ReadonlyMap<string, AclFileDataVersion> {
    return this.state.dataVersions;
  }

  /** UPDATE_AND_CREATE_ACL_CONFIG: edits the account where it lives, or adds it to the default file. */
  updateAccessConfig(config: AccessConfigUpdate): Promise<boolean> {
    return this.edit(async () => {
      buildOwnedAccess(config);
      checkResourcePerms(config.topicPerms);
      checkResourcePerms(config.groupPerms);
      const file = this.state.accessKeyTable.get(config.accessKey) ?? this.paths.defaultAclFile;
      const map = (await readAclFile(file)) ?? {};
      const accounts = Array.isArray(map[CONFIG_ACCOUNTS]) ? (map[CONFIG_ACCOUNTS] as unknown[]) : [];
      const at = accounts.findIndex(
        (a) =>
          typeof a === 'object' &&
          a !== null &&
          (a as Record<string, unknown>).accessKey === config.accessKey,
      );
      const existing = at < 0 ? {} : (accounts[at] as Record<string, unknown>);
      const updated = accountMap(existing, config);
      // Upstream removes the old entry and appends the new one.
      if (at >= 0) accounts.splice(at, 1);
      accounts.push(updated);
      map[CONFIG_ACCOUNTS] = accounts;
      await this.writeBack(file, map);
      return true;
    });
  }

  /** DELETE_ACL_CONFIG: false when the key is unknown. */
  deleteAccessConfig(accessKey: string): Promise<boolean> {
    return this.edit(async () => {
      if (accessKey === '') return false;
      const file = this.state.accessKeyTable.get(accessKey);
      if (file === undefined) return false;
      const map = await readAclFile(file);
      if (map === undefined) return true;
      const accounts = Array.isArray(map[CONFIG_ACCOUNTS]) ? (map[CONFIG_ACCOUNTS] as unknown[]) : [];
      const at = accounts.findIndex(
        (a) => typeof a === 'object' && a !== null && (a as Record<string, unknown>).accessKey === accessKey,
      );
      if (at < 0) return false;
      accounts.splice(at, 1);
      map[CONFIG_ACCOUNTS] = accounts;
      await this.writeBack(file, map);
      return true;
    });
  }

  /**
   * UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: replaces the list in `fileName` (the default file when empty),
   * which must exist, be a file, lie under the home directory and end in .yml or .yaml. Every entry
   * must be a valid whitelist (upstream writes anything and fails on the next load).
   */
  updateGlobalWhiteAddrsConfig(addresses: readonly string[], fileName?: string): Promise<boolean> {
    return this.edit(async () => {
      const file = fileName === undefined || fileName === '' ? this.paths.defaultAclFile : fileName;
      const known = this.state.files.includes(file) || file === this.paths.defaultAclFile;
      const home = this.paths.fileHome;
      const underHome = home !== undefined && file.startsWith(`${home}/`);
      if (!known || !(underHome || file === this.paths.defaultAclFile)) {
        this.options.logger.warn('global white address update refused: not an ACL file', { file });
        return false;
      }
      if (!file.endsWith('.yml') && !file.endsWith('.yaml')) return false;
      for (const a of addresses) getRemoteAddressStrategy(a);
      const map = (await readAclFile(file)) ?? {};
      map[CONFIG_GLOBAL_WHITE_ADDRS] = [...addresses];
      await this.writeBack(file, map);
      return true;
    });
  }

  private edit<T>(work: () => Promise<T>): Promise<T> {
    const run = this.editing.then(work, work);
    this.editing = run.catch(() => undefined);
    return run;
  }

  /** Bumps the file's dataVersion, writes it, and loads it at once (the watcher then sees no change). */
  private async writeBack(file: string, map: Record<string, unknown>): Promise<void> {
    const previous = this.state.dataVersions.get(file);
    const counter = (previous?.counter ?? 0) + 1;
    map[CONFIG_DATA_VERSION] = [{ counter, timestamp: this.options.clock.now() }];
    await writeAclFile(file, map);
    const snapshot = await aclFilesSnapshot(this.paths);
    const loaded = await loadAclState(this.paths, this.options.clock.now(), this.options.logger);
    this.state = loaded;
    this.watcher.acknowledge(snapshot);
  }

  private async assureDefaultFileExists(): Promise<void> {
    const file = this.paths.defaultAclFile;
    await mkdir(dirname(file), { recursive: true });
    // 'a' creates the file if missing and never truncates one that exists.
    const handle = await open(file, 'a', 0o600);
    await handle.close();
  }
}

/** createAclAccessConfigMap: the account's YAML entry, existing keys kept, given fields replaced. */
function accountMap(existing: Record<string, unknown>, c: AccessConfigUpdate): Record<string, unknown> {
  const out: Record<string, unknown> = { ...existing, accessKey: c.accessKey };
  if (c.secretKey !== undefined && c.secretKey !== '') out.secretKey = c.secretKey;
  if (c.whiteRemoteAddress !== undefined) out.whiteRemoteAddress = c.whiteRemoteAddress;
  out.admin = c.admin === true;
  if (c.defaultTopicPerm !== undefined && c.defaultTopicPerm !== '')
    out.defaultTopicPerm = c.defaultTopicPerm;
  if (c.defaultGroupPerm !== undefined && c.defaultGroupPerm !== '')
    out.defaultGroupPerm = c.defaultGroupPerm;
  if (c.topicPerms !== undefined) out.topicPerms = [...c.topicPerms];
  if (c.groupPerms !== undefined) out.groupPerms = [...c.groupPerms];
  return out;
}
