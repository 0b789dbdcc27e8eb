/**
 * `rmq bench producer|consumer`: load generators taking upstream's benchmark flags and printing its
 * lines, so the same load can be driven from Node and from the official Java client (docs/bench.md).
 * A bad command line is one line on stderr and exit code 2; a failure while running is one line and
 * exit code 1; SIGINT or SIGTERM stops the run, prints the summary and exits 0.
 */
import { createLogger, type Logger, LogLevel } from '../../common/logger.js';
import type { CliIO } from '../io.js';
import { runConsumerBench } from './consumer-runner.js';
import { CONSUMER_USAGE, parseConsumerArgs } from './consumer-settings.js';
import { BenchFlagError } from './flags.js';
import { runProducerBench } from './producer-runner.js';
import { PRODUCER_USAGE, parseProducerArgs } from './producer-settings.js';
import type { BenchContext } from './run-schedule.js';
import { BenchTerminal } from './terminal.js';

export const BENCH_USAGE = `Usage: rmq bench <tool> [options]

Tools:
  producer     sends as fast as it can, upstream benchmark Producer's flags (rmq bench producer --help)
  consumer     push-consumes and measures latency, upstream benchmark Consumer's flags (rmq bench consumer --help)
`;

/** Exit code of a bad command line, as `rmq <unknown command>`. */
const EXIT_USAGE = 2;
/** Exit code of a run that failed or did nothing at all. */
const EXIT_FAILED = 1;

interface Tool {
  readonly usage: string;
  run(argv: readonly string[], env: NodeJS.ProcessEnv, ctx: BenchContext): Promise<number>;
}

const TOOLS = new Map<string, Tool>([
  [
    'producer',
    { usage: PRODUCER_USAGE, run: (argv, env, ctx) => runProducerBench(parseProducerArgs(argv, env), ctx) },
  ],
  [
    'consumer',
    { usage: CONSUMER_USAGE, run: (argv, env, ctx) => runConsumerBench(parseConsumerArgs(argv, env), ctx) },
  ],
]);

export interface BenchOptions {
  /** Stops the run as SIGINT would; without it SIGINT and SIGTERM are listened to. */
  readonly signal?: AbortSignal;
  /** Whether to draw the live progress line [process.stdout.isTTY]. */
  readonly isTTY?: boolean;
  /** NAMESRV_ADDR and RMQ_LOG_LEVEL come from here [process.env]. */
  readonly env?: NodeJS.ProcessEnv;
}

/** An AbortSignal aborted by the first SIGINT or SIGTERM; a second one gets the default (exit at once). */
function processSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (): void => {
    dispose();
    controller.abort();
  };
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}

/** The client logs at `error` only, unless RMQ_LOG_LEVEL asks for more: the bench's output is its lines. */
function clientLogger(env: NodeJS.ProcessEnv): Logger {
  const level = env.RMQ_LOG_LEVEL;
  return level !== undefined && level in LogLevel
    ? createLogger('rmq.bench', { level: level as keyof typeof LogLevel })
    : createLogger('rmq.bench', { level: 'error' });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs `rmq bench <argv>` and resolves with the exit code. */
export async function benchFromArgs(
  argv: readonly string[],
  io: CliIO,
  options: BenchOptions = {},
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(BENCH_USAGE);
    return EXIT_USAGE;
  }
  if (name === '-h' || name === '--help' || name === 'help') {
    io.out(BENCH_USAGE);
    return 0;
  }
  const tool = TOOLS.get(name);
  if (tool === undefined) {
    io.err(`rmq bench: unknown tool "${name}"\n\n${BENCH_USAGE}`);
    return EXIT_USAGE;
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    io.out(tool.usage);
    return 0;
  }
  const env = options.env ?? process.env;
  const fromProcess = options.signal === undefined ? processSignal() : undefined;
  const ctx: BenchContext = {
    terminal: new BenchTerminal(io, options.isTTY ?? process.stdout.isTTY === true),
    signal: options.signal ?? (fromProcess as { signal: AbortSignal }).signal,
    warn: (text) => io.err(`rmq bench ${name}: ${text}\n`),
    clientLogger: clientLogger(env),
  };
  try {
    return await tool.run(rest, env, ctx);
  } catch (error) {
    io.err(`rmq bench ${name}: ${messageOf(error)}\n`);
    return error instanceof BenchFlagError ? EXIT_USAGE : EXIT_FAILED;
  } finally {
    fromProcess?.dispose();
  }
}
