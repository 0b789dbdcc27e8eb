/**
 * The `rmq` command line: start, namesrv, broker, bench, admin (mqadmin's commands); unknown commands
 * fail with a usage message rather than silently doing nothing.
 */
import { readFileSync } from 'node:fs';
import { BROKER_USAGE, startBrokerFromArgs } from './broker-command.js';
import { DASHBOARD_USAGE, startDashboardFromArgs } from './dashboard-command.js';
import { CliExitError, type CliIO } from './io.js';
import { NAMESRV_USAGE, startNamesrvFromArgs } from './namesrv-command.js';
import { START_USAGE, startFromArgs } from './start-command.js';

const USAGE = `Usage: rmq <command> [options]

Commands:
  start        development broker: name server and broker in one process, data in ./data,
               SQL92 on, announced on 127.0.0.1 (rmq start --help)
  namesrv      name server alone (rmq namesrv --help)
  broker       broker alone, upstream's defaults (rmq broker -c broker.conf; rmq broker --help)
  bench        load generators: rmq bench producer|consumer (rmq bench --help)
  dashboard    web dashboard of any cluster: rmq dashboard -n host:port (rmq dashboard --help)
  admin        mqadmin's commands: rmq admin topicList -n host:port (rmq admin --help);
               each also runs as rmq <command> (rmq topicList -n host:port)

Options:
  -h, --help       print this help
  -v, --version    print the version
`;

export type { CliIO } from './io.js';

const defaultIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
};

export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') {
    return pkg.version;
  }
  throw new Error('package.json has no version');
}

const signalCleanups = new WeakMap<Promise<void>, () => void>();

/** Resolves on the first SIGINT or SIGTERM, for a graceful shutdown. */
function waitForSignal(): Promise<void> {
  let cleanup = (): void => {};
  const promise = new Promise<void>((resolve) => {
    const done = (): void => {
      cleanup();
      resolve();
    };
    cleanup = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  signalCleanups.set(promise, cleanup);
  return promise;
}

/** Removes the listeners of a waitForSignal that is no longer wanted (the start failed). */
function stopWaiting(signal: Promise<void>): void {
  signalCleanups.get(signal)?.();
}

interface ServerCommand {
  usage: string;
  /** Resolves once listening, with what a signal shuts down. */
  run(argv: readonly string[], io: CliIO): Promise<{ shutdown(): Promise<void> }>;
}

const SERVERS = new Map<string, ServerCommand>([
  ['namesrv', { usage: NAMESRV_USAGE, run: startNamesrvFromArgs }],
  ['broker', { usage: BROKER_USAGE, run: startBrokerFromArgs }],
  ['dashboard', { usage: DASHBOARD_USAGE, run: (argv, io) => startDashboardFromArgs(argv, io) }],
  [
    'start',
    {
      usage: START_USAGE,
      run: async (argv, io) => {
        const pair = await startFromArgs(argv, io);
        return { shutdown: () => pair.close() };
      },
    },
  ],
]);

/** An mqadmin command name that `rmq` runs without `admin` in front (none clashes with ours). */
async function isAdminCommand(command: string): Promise<boolean> {
  if (SERVERS.has(command) || command === 'bench') return false;
  const { findAdminCommand } = await import('./admin/admin-command.js');
  return findAdminCommand(command) !== undefined;
}

/** Runs the CLI and returns the process exit code. */
export async function main(argv: readonly string[], io: CliIO = defaultIO): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.out(USAGE);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    io.out(`rmq ${packageVersion()}\n`);
    return 0;
  }
  if (command === 'bench') {
    // Loaded on demand: the servers' start-up need not pay for the client and the histogram library.
    const { benchFromArgs } = await import('./bench/bench-command.js');
    return benchFromArgs(argv.slice(1), io);
  }
  if (command === 'admin' || (await isAdminCommand(command))) {
    const { adminFromArgs } = await import('./admin/admin-command.js');
    return adminFromArgs(command === 'admin' ? argv.slice(1) : argv, io);
  }
  const server = SERVERS.get(command);
  if (server !== undefined) {
    const rest = argv.slice(1);
    if (rest.includes('-h') || rest.includes('--help')) {
      io.out(server.usage);
      return 0;
    }
    // Listening for the signal before anything starts: a SIGTERM that arrives while the servers
    // start (or right after they print their addresses) still shuts them down gracefully.
    const signal = waitForSignal();
    let running: { shutdown(): Promise<void> };
    try {
      running = await server.run(rest, io);
    } catch (error) {
      stopWaiting(signal);
      if (!(error instanceof CliExitError)) throw error;
      io.err(`rmq ${command}: ${error.message}\n`);
      return error.exitCode;
    }
    await signal;
    io.out(`rmq ${command}: shutting down\n`);
    await running.shutdown();
    return 0;
  }
  io.err(`rmq: unknown command "${command}"\n\n${USAGE}`);
  return 2;
}
