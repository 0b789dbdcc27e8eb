/**
 * `rmq bench producer` flags: upstream's benchmark Producer and BatchProducer (4.9.8) flags with their
 * defaults, plus ours (docs/bench.md, .tmp/bench-contract.md).
 */
import {
  BenchFlagError,
  COMMON_FLAGS,
  type CommonSettings,
  FlagReader,
  type FlagSpec,
  flagsUsage,
  readCommon,
  scanFlags,
} from './flags.js';

/** Upstream Producer's thread count. */
export const DEFAULT_PRODUCER_THREADS = 64;
/** Upstream Producer's body size, bytes. */
export const DEFAULT_MESSAGE_SIZE = 128;
/** Upstream's producer group of the benchmark. */
export const DEFAULT_PRODUCER_GROUP = 'benchmark_producer';
/** Upstream Producer's MAX_LENGTH_ASYNC_QUEUE: how many async sends it lets wait. */
export const ASYNC_MAX_IN_FLIGHT = 10_000;
/** The client's default maxMessageSize (4 MiB): a bigger body is refused by every send. */
const MAX_MESSAGE_SIZE = 4 * 1024 * 1024;
/** Upstream's batch is one request; beyond this the encoded batch outgrows any sane frame. */
const MAX_BATCH_SIZE = 10_000;
/** Properties travel in a header field whose length is a Java short (32767); half leaves room for separators. */
const MAX_PROPERTY_SIZE = 16_384;
/** The DELAY property is a Java int; the broker caps a level above its table at the last level. */
const MAX_INT32 = 2_147_483_647;
/** More concurrent senders than this is a typo: each holds a message and a promise. */
const MAX_THREADS = 100_000;

const PRODUCER_FLAGS: readonly FlagSpec[] = [
  ...COMMON_FLAGS,
  {
    name: 'threadCount',
    short: 'w',
    value: 'N',
    help: `concurrent senders, each awaiting its own send [${DEFAULT_PRODUCER_THREADS}]`,
  },
  { name: 'messageSize', short: 's', value: 'BYTES', help: `body size [${DEFAULT_MESSAGE_SIZE}]` },
  {
    name: 'keyEnable',
    short: 'k',
    value: 'true|false',
    help: 'set a key (the send time in seconds) on each message [false]',
  },
  { name: 'tagCount', short: 'l', value: 'N', help: 'tags tag0..tag(N-1), in turn; 0 = no tag [0]' },
  {
    name: 'messageQuantity',
    short: 'q',
    value: 'N',
    help: 'messages to send in all; 0 = until stopped [0]',
  },
  { name: 'delayEnable', short: 'd', value: 'true|false', help: 'delayed messages [false]' },
  { name: 'delayLevel', short: 'e', value: 'LEVEL', help: 'delay level of -d [1]' },
  {
    name: 'batchSize',
    short: 'b',
    value: 'N',
    help: 'messages per send; > 1 sends batches as BatchProducer [1]',
  },
  {
    name: 'propertySize',
    short: 'p',
    value: 'CHARS',
    help: 'user properties of about this many characters per message [0]',
  },
  {
    name: 'asyncEnable',
    short: 'y',
    value: 'true|false',
    help: `one sender that does not await its sends, at most --in-flight [${ASYNC_MAX_IN_FLIGHT}] outstanding [false]`,
  },
  { name: 'in-flight', value: 'N', help: 'sends outstanding at most, all senders together [-w]' },
  { name: 'group', value: 'GROUP', help: `producer group [${DEFAULT_PRODUCER_GROUP}]` },
];

export const PRODUCER_USAGE = `Usage: rmq bench producer [options]

Sends messages as fast as the senders can, like upstream's benchmark Producer (-b > 1: BatchProducer),
and prints upstream's interval line with p50/p99/p99.9 send latency. Stops on -q, --duration, SIGINT or
SIGTERM; then prints [Complete] and a summary.

Options:
${flagsUsage(PRODUCER_FLAGS)}  -h, --help             print this help
`;

export interface ProducerSettings extends CommonSettings {
  readonly threadCount: number;
  readonly messageSize: number;
  readonly keyEnable: boolean;
  readonly tagCount: number;
  /** Messages in all, 0 for no limit. */
  readonly messageQuantity: number;
  readonly delayEnable: boolean;
  readonly delayLevel: number;
  readonly batchSize: number;
  readonly propertySize: number;
  readonly asyncEnable: boolean;
  readonly inFlight: number;
  readonly group: string;
}

export function parseProducerArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ProducerSettings {
  const flags = new FlagReader(PRODUCER_FLAGS, scanFlags(argv, PRODUCER_FLAGS));
  const common = readCommon(flags, env);
  const asyncEnable = flags.boolean('asyncEnable', false);
  // Upstream's async mode runs one thread and lets callbacks pile up to MAX_LENGTH_ASYNC_QUEUE.
  const threadCount = asyncEnable
    ? 1
    : flags.integer('threadCount', DEFAULT_PRODUCER_THREADS, 1, MAX_THREADS);
  const batchSize = flags.integer('batchSize', 1, 1, MAX_BATCH_SIZE);
  const delayEnable = flags.boolean('delayEnable', false);
  if (delayEnable && batchSize > 1) {
    throw new BenchFlagError('-d true cannot be combined with -b > 1: a batch carries no delay level');
  }
  return {
    ...common,
    threadCount,
    messageSize: flags.integer('messageSize', DEFAULT_MESSAGE_SIZE, 1, MAX_MESSAGE_SIZE),
    keyEnable: flags.boolean('keyEnable', false),
    tagCount: flags.integer('tagCount', 0, 0, MAX_THREADS),
    messageQuantity: flags.integer('messageQuantity', 0, 0),
    delayEnable,
    delayLevel: flags.integer('delayLevel', 1, 1, MAX_INT32),
    batchSize,
    propertySize: flags.integer('propertySize', 0, 0, MAX_PROPERTY_SIZE),
    asyncEnable,
    inFlight: flags.integer('in-flight', asyncEnable ? ASYNC_MAX_IN_FLIGHT : threadCount, 1, MAX_THREADS),
    group: flags.text('group', DEFAULT_PRODUCER_GROUP),
  };
}
