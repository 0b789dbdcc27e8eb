/**
 * `rmq dashboard -n host:port`: the web dashboard alone, an admin client of any cluster (ours or an
 * official one), on http://127.0.0.1:8080/ unless --host/--port say otherwise.
 */

import type { TlsClientOptions } from '../remoting/transport/tls-settings.js';
import { DEFAULT_DASHBOARD_HOST, DEFAULT_DASHBOARD_PORT, startHttpServer } from './dashboard-server.js';
import { CliExitError, type CliIO } from './io.js';
import { parseCliArgs } from './parse-args.js';
import { secretKeyOf } from './secret-flags.js';
import { tlsOptionOfFlags } from './tls-flags.js';

export const DASHBOARD_USAGE = `Usage: rmq dashboard [-n host:port[;host:port]] [options]

The web dashboard (cluster, topics, consumer groups, messages, producers, live TPS) for any cluster.

Options:
  -n, --namesrvAddr <list>   name servers [$NAMESRV_ADDR]
      --host <address>       address to listen on [${DEFAULT_DASHBOARD_HOST}]
      --port <port>          port to listen on [${DEFAULT_DASHBOARD_PORT}]
      --tls                  connect to name servers and brokers with TLS, verifying them
      --tls-ca <file>        PEM CA the servers' certificates must lead to (implies --tls)
      --tls-insecure         TLS without verifying the servers (implies --tls)
      --access-key <key>     ACL account to sign with (an admin account for changes) [$ROCKETMQ_ACCESS_KEY]
      --secret-key-file <f>  file holding its secret [$RMQ_SECRET_KEY or $ROCKETMQ_SECRET_KEY]
      --secret-key <key>     its secret on the command line (visible in ps: prefer the file)
      --tps-interval <ms>    period of the live TPS sampling [5000]
  -h, --help                 print this help
`;

/** Exit code of a bad command line, as the other commands. */
const EXIT_USAGE = 2;

function usageError(message: string): CliExitError {
  return new CliExitError(`${message}\n${DASHBOARD_USAGE}`, EXIT_USAGE);
}

function intFlag(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw usageError(`--${name} must be a whole number in [${min}, ${max}], got ${raw}`);
  return Number(raw);
}

export async function startDashboardFromArgs(
  argv: readonly string[],
  io: CliIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ shutdown(): Promise<void> }> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseCliArgs({
      args: [...argv],
      options: {
        namesrvAddr: { type: 'string', short: 'n' },
        host: { type: 'string' },
        port: { type: 'string' },
        tls: { type: 'boolean' },
        'tls-ca': { type: 'string' },
        'tls-insecure': { type: 'boolean' },
        'access-key': { type: 'string' },
        'secret-key': { type: 'string' },
        'secret-key-file': { type: 'string' },
        'tps-interval': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
  const str = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === 'string' ? v : undefined;
  };
  const namesrvAddr = str('namesrvAddr') ?? env.NAMESRV_ADDR;
  if (namesrvAddr === undefined || namesrvAddr.trim() === '')
    throw usageError('no name server: give -n host:port or set NAMESRV_ADDR');
  const port = intFlag('port', str('port'), 0, 65535) ?? DEFAULT_DASHBOARD_PORT;
  const host = str('host') ?? DEFAULT_DASHBOARD_HOST;
  const tpsSampleIntervalMs = intFlag('tps-interval', str('tps-interval'), 100, 3_600_000);
  const accessKey = str('access-key') ?? env.ROCKETMQ_ACCESS_KEY;
  let secretKey: string | undefined;
  try {
    secretKey = secretKeyOf(
      str('secret-key'),
      str('secret-key-file'),
      env.RMQ_SECRET_KEY ?? env.ROCKETMQ_SECRET_KEY,
      (line) => io.err(line),
    );
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
  if ((accessKey === undefined) !== (secretKey === undefined))
    throw usageError('--access-key and --secret-key go together');

  let tlsOption: { tls?: TlsClientOptions };
  try {
    const tls = tlsOptionOfFlags(values.tls === true, str('tls-ca'), values['tls-insecure'] === true);
    tlsOption = tls === undefined ? {} : { tls };
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }

  // Loaded here: the other commands need not pay for the admin client and the dashboard.
  const { createDashboard } = await import('../admin/dashboard/index.js');
  const dashboard = createDashboard({
    namesrvAddr,
    ...tlsOption,
    ...(accessKey !== undefined && secretKey !== undefined ? { credentials: { accessKey, secretKey } } : {}),
    ...(tpsSampleIntervalMs === undefined ? {} : { tpsSampleIntervalMs }),
  });
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    server = await startHttpServer([dashboard], { host, port });
  } catch (error) {
    await dashboard.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliExitError(`port ${port} on ${host} is in use: choose another with --port`, 1);
    throw error;
  }
  io.out(`rmq dashboard: ${server.url} (name servers ${namesrvAddr})\n`);
  return {
    async shutdown() {
      await server.close();
      await dashboard.close();
    },
  };
}
