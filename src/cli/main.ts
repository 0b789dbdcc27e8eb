/**
 * The `rmq` command line. Commands arrive with later issues (start, namesrv, broker, admin tools);
 * unknown commands fail with a usage message rather than silently doing nothing.
 */
import { readFileSync } from 'node:fs';
import type { CliIO } from './io.js';
import { NAMESRV_USAGE, startNamesrvFromArgs } from './namesrv-command.js';

const USAGE = `Usage: rmq <command> [options]

Commands:
  start        name server and broker in one process (not yet available)
  namesrv      name server alone (rmq namesrv --help)
  broker       broker alone (not yet available)

Options:
  -h, --help       print this help
  -v, --version    print the version
`;

export type { CliIO } from './io.js';

const defaultIO: CliIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') {
    return pkg.version;
  }
  throw new Error('package.json has no version');
}

/** Resolves on the first SIGINT or SIGTERM, for a graceful shutdown. */
function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
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
  if (command === 'namesrv') {
    const rest = argv.slice(1);
    if (rest.includes('-h') || rest.includes('--help')) {
      io.out(NAMESRV_USAGE);
      return 0;
    }
    const namesrv = await startNamesrvFromArgs(rest, io);
    await waitForSignal();
    await namesrv.shutdown();
    return 0;
  }
  if (command === 'start' || command === 'broker') {
    io.err(`rmq ${command}: not yet — the name server and broker land with the broker issue\n`);
    return 1;
  }
  io.err(`rmq: unknown command "${command}"\n\n${USAGE}`);
  return 2;
}
