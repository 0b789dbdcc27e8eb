/**
 * One mqadmin sub command: its name and description (as `mqadmin --help` lists them), its options,
 * and what it does with an admin client. The context builds that client the way mqadmin does:
 * `-n`, else NAMESRV_ADDR; the ACL account of `$ROCKETMQ_HOME/conf/tools.yml` (or our flags).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createAdmin } from '../../admin/admin.js';
import type { MQAdminExt } from '../../admin/mq-admin-ext.js';
import type { ClientOptions } from '../../client/client-config.js';
import type { CliIO } from '../io.js';
import { secretKeyOf } from '../secret-flags.js';
import { tlsOptionOfFlags } from '../tls-flags.js';
import { type AdminOption, AdminUsageError, type OptionValues } from './options.js';

export interface CommandContext {
  readonly opts: OptionValues;
  /** Whether --json was given (read commands only). */
  readonly json: boolean;
  readonly io: CliIO;
  /** The started admin client, created on first use and shut down after the command. */
  admin(): Promise<MQAdminExt>;
  /** Name servers, account and TLS for a client of the command's own (sendMessage's producer). */
  clientOptions(): ClientOptions;
  /** The exit code when the command ends without throwing (0 unless set). */
  setExitCode(code: number): void;
}

export interface AdminCommand {
  readonly name: string;
  /** Upstream's commandDesc. */
  readonly desc: string;
  readonly options: readonly AdminOption[];
  /** A read command takes --json. */
  readonly read: boolean;
  run(ctx: CommandContext): Promise<void>;
}

/** Upstream's path of the tools' ACL account, under ROCKETMQ_HOME. */
export const TOOLS_YML = join('conf', 'tools.yml');

export interface Credentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

/**
 * As MQAdminStartup.getAclRPCHook: accessKey and secretKey of `<home>/conf/tools.yml`; nothing when
 * the file is missing or either is blank.
 */
export function toolsYmlCredentials(home: string | undefined): Credentials | undefined {
  if (home === undefined || home.trim() === '') return undefined;
  const file = join(home, TOOLS_YML);
  if (!existsSync(file)) return undefined;
  const data: unknown = parseYaml(readFileSync(file, 'utf8'));
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as Record<string, unknown>;
  // YAML reads `secretKey: 12345678` as a number; upstream's getString gives its text.
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;
  const accessKey = text(record.accessKey);
  const secretKey = text(record.secretKey);
  if (accessKey === undefined || secretKey === undefined) return undefined;
  if (accessKey.trim() === '' || secretKey.trim() === '') return undefined;
  return { accessKey, secretKey };
}

/** The account every request is signed with: our flags first, then tools.yml. */
export function resolveCredentials(
  opts: OptionValues,
  env: NodeJS.ProcessEnv,
  warn: (line: string) => void = (line) => process.stderr.write(line),
): Credentials | undefined {
  const accessKey = opts.text('access-key') ?? (env.RMQ_ACCESS_KEY === '' ? undefined : env.RMQ_ACCESS_KEY);
  let secretKey: string | undefined;
  try {
    secretKey = secretKeyOf(opts.text('secret-key'), opts.text('secret-key-file'), env.RMQ_SECRET_KEY, warn);
  } catch (error) {
    throw new AdminUsageError(error instanceof Error ? error.message : String(error));
  }
  if (accessKey !== undefined || secretKey !== undefined) {
    if (accessKey === undefined || secretKey === undefined) {
      throw new AdminUsageError(
        '--access-key (or RMQ_ACCESS_KEY) and the secret key (--secret-key-file or RMQ_SECRET_KEY) go together',
      );
    }
    return { accessKey, secretKey };
  }
  return toolsYmlCredentials(env.ROCKETMQ_HOME);
}

function tlsOf(opts: OptionValues): Pick<ClientOptions, 'tls'> {
  try {
    const tls = tlsOptionOfFlags(opts.has('tls'), opts.text('tls-ca'), opts.has('tls-insecure'));
    return tls === undefined ? {} : { tls };
  } catch (error) {
    throw new AdminUsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The options every client of one command run gets: -n or NAMESRV_ADDR, the account, --tls. */
export function commandClientOptions(opts: OptionValues, env: NodeJS.ProcessEnv): ClientOptions {
  const credentials = resolveCredentials(opts, env);
  const fromEnv = env.NAMESRV_ADDR?.trim();
  const namesrvAddr = opts.text('namesrvAddr') ?? (fromEnv === '' ? undefined : fromEnv);
  if (namesrvAddr === undefined) {
    throw new AdminUsageError('no name server: give -n host:port or set NAMESRV_ADDR');
  }
  return {
    namesrvAddr,
    ...(credentials === undefined ? {} : { credentials }),
    ...tlsOf(opts),
  };
}

/** Builds the client of one command run; `close()` shuts it down if it was started. */
export function adminFactory(
  opts: OptionValues,
  env: NodeJS.ProcessEnv,
): { admin(): Promise<MQAdminExt>; close(): Promise<void> } {
  let started: Promise<MQAdminExt> | undefined;
  return {
    admin() {
      started ??= (async () => {
        const admin = createAdmin(commandClientOptions(opts, env));
        await admin.start();
        return admin;
      })();
      return started;
    },
    async close() {
      if (started === undefined) return;
      const admin = await started.catch(() => undefined);
      await admin?.shutdown();
    },
  };
}

/**
 * The master addresses of `clusterName` (upstream CommandUtil.fetchMasterAddrByClusterName). Upstream
 * prints its error line and goes on with no broker, exit status 0; here the command fails with that
 * line, naming the cluster, so a typo in `-c` never reads as success.
 */
export async function clusterMasterAddrs(admin: MQAdminExt, clusterName: string): Promise<string[]> {
  const addrs = await admin.fetchMasterAddrByClusterName(clusterName);
  if (addrs.length === 0) {
    throw new Error(
      `no master broker in cluster [${clusterName}]: make sure the specified clusterName exists or the name server connected to is correct`,
    );
  }
  return addrs;
}
